import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { requestContext } from '../request-context.ts';
import type { Logger } from '../logger.ts';
import { doublingDelayMs } from './backoff.ts';
import { onWork } from './signals.ts';

/** One pass of a worker: how much it did, and whether more may be due right away (a full batch). */
export interface PassResult {
  done: number;
  more: boolean;
}

export interface PollerOptions {
  /** For logs. */
  name: string;
  /** One pass over due work. */
  pass: () => Promise<PassResult>;
  /** Pause between passes when there was nothing (more) to do. */
  intervalMs: number;
  /** Work signals (see `signalWork`) that wake the poller at once. */
  wakeOn?: readonly string[];
  /** Delay before the first pass; default the interval (so a `runOnce` right after start is not raced). */
  firstDelayMs?: number;
  logger?: Pick<Logger, 'error' | 'info'>;
  /** Longest pause after consecutive failures (the pause doubles from `intervalMs`). */
  maxBackoffMs?: number;
  /**
   * A wake runs a pass no sooner than this after the previous pass began: under a stream of
   * commits, each pass takes what the last few made (one claim, one round of publishes, one
   * mark for several rows) instead of a pass per commit; a wake after a quiet spell still runs
   * at once. Default 0: every wake runs a pass as soon as none is running.
   */
  wakeGapMs?: number;
}

export interface Poller {
  /** Runs a pass now instead of at the next interval (a commit made work). */
  wake(): void;
  /** Runs passes until one finds nothing more to do; resolves with what they did. For tests and shutdown. */
  runOnce(): Promise<number>;
  /** No new passes; waits for the one under way. */
  stop(): Promise<void>;
}

/**
 * The one loop every background worker runs on (outbox relay, expiry sweeper, supplier releases,
 * webhook deliveries, retention): one pass at a time per poller, again at once while passes find
 * more, woken by work signals, backing off while passes fail. Passes run in a root context: no
 * request's trace (or request id) ever holds a poll, whoever woke it.
 */
export function startPoller(options: PollerOptions): Poller {
  const { intervalMs } = options;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let wakeRequested = false;
  let failures = 0;
  const wakeGapMs = options.wakeGapMs ?? 0;
  let lastPassAt = Number.NEGATIVE_INFINITY;
  /** How long a wake waits now: until `wakeGapMs` after the last pass began. */
  const wakeDelay = () => Math.max(0, Math.ceil(lastPassAt + wakeGapMs - performance.now()));

  async function passes(): Promise<number> {
    let total = 0;
    for (;;) {
      wakeRequested = false;
      lastPassAt = performance.now();
      const result = await options.pass();
      total += result.done;
      if (!result.more || stopped) return total;
    }
  }

  /** Serialised: a call during a run waits for it, then runs again. */
  async function runSerialized(): Promise<number> {
    while (running) await running.catch(() => undefined);
    const run = detached(passes);
    running = run;
    try {
      return await run;
    } finally {
      running = undefined;
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = detached(() =>
      setTimeout(() => {
        timer = undefined;
        runSerialized().then(
          () => {
            if (failures > 0) options.logger?.info({ worker: options.name }, 'background worker recovered');
            failures = 0;
            if (!timer) schedule(wakeRequested ? wakeDelay() : intervalMs);
          },
          (error: unknown) => {
            failures += 1;
            const delay = doublingDelayMs(failures + 1, intervalMs, options.maxBackoffMs ?? 60_000);
            options.logger?.error(
              { worker: options.name, err: error instanceof Error ? error.message : String(error), retry_in_ms: delay },
              'background worker pass failed',
            );
            if (!timer) schedule(delay);
          },
        );
      }, delayMs),
    );
    // A worker alone must not keep a process (or a test worker) alive.
    timer.unref();
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      wakeRequested = true;
      return;
    }
    schedule(wakeDelay());
  }

  const unsubscribe = (options.wakeOn ?? []).map((name) => onWork(name, wake));
  schedule(options.firstDelayMs ?? intervalMs);

  return {
    wake,
    runOnce: runSerialized,
    async stop() {
      stopped = true;
      for (const off of unsubscribe) off();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}

/** Runs `fn` outside any request: no active span, no request id (timers made in it keep that). */
export function detached<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, () => requestContext.exit(fn));
}
