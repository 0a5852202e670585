import type { RequestListener } from 'node:http';
import type { CallbackSender } from './callbacks.ts';
import { Clock } from './clock.ts';
import { commonControl } from './control-handle.ts';
import type { FaultState } from './faults.ts';
import type { CommonFakeOptions } from './options.ts';
import { JsonFileStore } from './persistence.ts';
import { FixedWindowLimiter } from './rate-limiter.ts';
import { Recorder } from './recorder.ts';
import { FakeServer } from './server.ts';
import { Timers } from './timers.ts';

/** What every route and control operation of a fake shares, whatever the vendor. */
export interface CommonContext<S> {
  state: S;
  clock: Clock;
  recorder: Recorder;
  limiter: FixedWindowLimiter;
  sender: CallbackSender;
  faults: FaultState;
  /** Work done later (slowed requests, orders still processing), cancelled when the fake closes. */
  timers: Timers;
  /** The fake's own origin, e.g. https://127.0.0.1:4321. */
  origin(): string;
  /** Persists the state (no-op without a state file). */
  save(): void;
}

/** The vendor-independent machinery of a fake: state (in memory or a file), clock, recorder, faults, server. */
export function fakeRuntime<S>(options: CommonFakeOptions, fresh: () => S) {
  const store = new JsonFileStore<S>(options.stateFile);
  // The server is made after the app, which needs the context that names the server's origin.
  const listener: { server?: FakeServer } = {};
  const context: CommonContext<S> = {
    state: store.load(fresh),
    clock: new Clock(),
    recorder: new Recorder(),
    limiter: new FixedWindowLimiter(),
    sender: { enabled: options.callbacks ?? true, timeoutMs: options.callbackTimeoutMs ?? 5000 },
    faults: { delayMs: 0, lateMs: 0 },
    timers: new Timers(),
    origin: () => listener.server!.origin,
    save: () => store.save(context.state),
  };
  const { stop, ...control } = commonControl({
    listener,
    faults: context.faults,
    recorder: context.recorder,
    limiter: context.limiter,
    sender: context.sender,
  });
  return {
    context,
    control,
    checks: { requests: options.checkRequests ?? true, responses: options.checkResponses ?? false },
    /** Listens (port 0: a free one) and returns the server with a close that also ends a timed outage. */
    async serve(app: RequestListener) {
      const server = new FakeServer(app, { host: options.host, tls: options.tls });
      listener.server = server;
      await server.listen(options.port ?? 0);
      return {
        server,
        close: async () => {
          stop();
          context.timers.cancelAll();
          await server.close();
        },
      };
    },
  };
}
