import type { CallbackSender } from './callbacks.ts';
import type { FakeControl } from './control.ts';
import { processingFault, type FaultState } from './faults.ts';
import type { FixedWindowLimiter } from './rate-limiter.ts';
import type { Recorder } from './recorder.ts';
import type { FakeServer } from './server.ts';

/** The parts of both fakes' control handles that have nothing to do with the vendor. */
export type CommonControl = Pick<FakeControl, 'setCallbacks' | 'callbacks' | 'fault' | 'clearFaults' | 'counters' | 'violations' | 'resetObservations'>;

export interface CommonControlParts {
  /** Set once the server exists (it is made after the app, which needs the control handle). */
  listener: { server?: FakeServer };
  faults: FaultState;
  recorder: Recorder;
  limiter: FixedWindowLimiter;
  sender: CallbackSender;
}

export function commonControl({ listener, faults, recorder, limiter, sender }: CommonControlParts): CommonControl & { stop: () => void } {
  let downTimer: NodeJS.Timeout | undefined;
  const control = {
    setCallbacks: (enabled: boolean) => {
      sender.enabled = enabled;
    },
    callbacks: () => [...recorder.callbacks],
    fault: async (fault: Parameters<FakeControl['fault']>[0]) => {
      if (fault.kind === 'down') {
        await listener.server!.goDown();
        if (fault.forMs) downTimer = setTimeout(() => void listener.server!.comeUp(), fault.forMs);
      } else if (fault.kind === 'slow') faults.delayMs = fault.delayMs;
      else if (fault.kind === 'late') {
        faults.lateMs = fault.delayMs;
        faults.latePath = fault.path;
      } else if (fault.kind === 'status') faults.status = { status: fault.status, remaining: fault.count ?? Number.POSITIVE_INFINITY, path: fault.path };
      else if (fault.kind === 'processing') faults.processing = processingFault(fault);
      // A fault set over HTTP can name anything; one the fake does not know must not pass for set.
      else throw new Error(`unknown fault kind ${JSON.stringify((fault as { kind?: unknown }).kind)}`);
    },
    /** Stops the faults; work already taken on (an order still processing) is still done. */
    clearFaults: async () => {
      clearTimeout(downTimer);
      faults.delayMs = 0;
      faults.lateMs = 0;
      faults.latePath = undefined;
      faults.status = undefined;
      faults.processing = undefined;
      await listener.server!.comeUp();
    },
    counters: () => structuredClone(recorder.counters),
    violations: () => ({ requests: [...recorder.requestViolations], responses: [...recorder.responseViolations] }),
    resetObservations: async () => {
      recorder.reset();
      limiter.clear();
      await control.clearFaults();
    },
    /** Cancels a pending come-back (on close). */
    stop: () => clearTimeout(downTimer),
  };
  return control;
}
