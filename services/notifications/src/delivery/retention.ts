import type { Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { pruneEvents } from '../db/retention-repository.ts';

export interface RetentionOptions {
  /** How long events (with their deliveries and attempts) are kept. */
  keepMs: number;
  /** How often pruning runs. */
  intervalMs: number;
  /** Events deleted per transaction. */
  batchSize: number;
}

export interface Pruner {
  /** Prunes if `intervalMs` has passed since the last run; never throws (a failure is logged and retried next time). */
  whenDue(): Promise<void>;
}

/**
 * The retention step of the delivery worker's loop. Each instance prunes on its own; batches
 * skip rows another instance holds, so running several at once only shares the work.
 */
export function createPruner(options: RetentionOptions & { knex: Knex; logger: Logger; now?: () => number }): Pruner {
  const now = options.now ?? Date.now;
  let lastRun = Number.NEGATIVE_INFINITY;
  return {
    async whenDue() {
      const started = now();
      if (started - lastRun < options.intervalMs) return;
      lastRun = started;
      const before = Math.floor((started - options.keepMs) / 1000);
      let pruned = 0;
      try {
        for (;;) {
          const batch = await pruneEvents(options.knex, before, options.batchSize);
          pruned += batch;
          if (batch < options.batchSize) break;
        }
      } catch (err) {
        options.logger.error({ err }, 'pruning old events failed');
      }
      if (pruned > 0) options.logger.info({ events: pruned }, 'pruned events past their retention, with their deliveries and attempts');
    },
  };
}
