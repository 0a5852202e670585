import type { Logger } from '../logger.ts';
import { detached, startPoller } from './poller.ts';

export interface WorkPoolOptions<Item> {
  /** For logs. */
  name: string;
  /** Items worked at once, at most. */
  size: number;
  /**
   * Takes up to `free` items of due work (leased, so no other worker takes them); fewer, or none,
   * when less is due or caps hold the rest back. `more`: due work was left for want of room (the
   * free slots, or a cap that an item under way holds), so an item that ends should claim again.
   */
  claim(free: number): Promise<{ items: Item[]; more: boolean }>;
  /** Works one item; its slot frees when it settles. A rejection is logged, never thrown. */
  work(item: Item): Promise<void>;
  /** Pause between claims when nothing woke the pool. */
  intervalMs: number;
  /** Work signals (see `signalWork`) that wake the pool at once. */
  wakeOn?: readonly string[];
  logger?: Pick<Logger, 'error' | 'info'>;
}

export interface WorkPool {
  /** Claims now instead of at the next interval (a commit made work). */
  wake(): void;
  /** Items being worked now. */
  busy(): number;
  /** Claims until nothing more is claimed and waits for every item under way; resolves with how many were worked. For tests. */
  runOnce(): Promise<number>;
  /** Claims nothing more; waits for the items under way. */
  stop(): Promise<void>;
}

/**
 * A bounded pool of concurrent work on the poller: each item completes on its own, and its slot
 * is claimed again as soon as it frees, so a slow item holds one slot, never the items claimed
 * with it (a worker never waits for a batch's slowest member). Claims are one at a time, each for
 * the free slots only; an item that ends wakes the pool when work was left waiting for room (new
 * work wakes it through its signals, and the interval finds what comes due by time).
 */
export function startWorkPool<Item>(options: WorkPoolOptions<Item>): WorkPool {
  const working = new Set<Promise<void>>();
  let stopped = false;
  let waiting = false;

  const poller = startPoller({
    name: options.name,
    intervalMs: options.intervalMs,
    ...(options.wakeOn && { wakeOn: options.wakeOn }),
    ...(options.logger && { logger: options.logger }),
    async pass() {
      const free = options.size - working.size;
      if (stopped) return { done: 0, more: false };
      if (free <= 0) {
        waiting = true;
        return { done: 0, more: false };
      }
      const { items, more } = await options.claim(free);
      waiting = more;
      for (const item of items) start(item);
      // No pass again at once: a slot that frees wakes the pool, and new work signals it.
      return { done: items.length, more: false };
    },
  });

  function start(item: Item): void {
    // Each item runs outside the pass that claimed it (no request's context, no pass's span).
    const run: Promise<void> = detached(() => options.work(item))
      .catch((error: unknown) => {
        options.logger?.error({ worker: options.name, err: error instanceof Error ? error.message : String(error) }, 'background work item failed');
      })
      .finally(() => {
        working.delete(run);
        if (waiting && !stopped) poller.wake();
      });
    working.add(run);
  }

  const settled = async () => {
    while (working.size > 0) await Promise.allSettled([...working]);
  };

  return {
    wake: () => poller.wake(),
    busy: () => working.size,
    async runOnce() {
      let total = 0;
      for (;;) {
        const claimed = await poller.runOnce();
        total += claimed;
        if (claimed === 0 && working.size === 0) return total;
        await settled();
      }
    },
    async stop() {
      stopped = true;
      await poller.stop();
      await settled();
    },
  };
}
