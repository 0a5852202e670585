import { startPoller, sweepDue, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { pruneFinishedReplays } from '../db/replays-repository.ts';
import { deleteEvents, eventsPastRetention } from '../db/retention-repository.ts';

export interface RetentionOptions {
  knex: Knex;
  logger: Logger;
  /** How long events (with their deliveries and attempts) are kept. */
  keepMs: number;
  /** How long test events are kept, when sooner than `keepMs` (record 0213). */
  keepTestMs?: number;
  /** How often pruning runs. */
  intervalMs: number;
  /** Events deleted per transaction. */
  batchSize: number;
  now?: () => number;
}

/**
 * Prunes what outlived the retention (events, and replays that finished), on the platform's
 * poller every `intervalMs`, a batch per pass. Each batch of events is one sweep (`sweepDue`):
 * locked and deleted, with their deliveries, attempts and stream entries, in one transaction;
 * rows another instance holds are skipped, so running several at once only shares the work.
 */
export function startRetention(options: RetentionOptions): Poller {
  const now = options.now ?? Date.now;
  return startPoller({
    name: 'event retention',
    intervalMs: options.intervalMs,
    // The first pass soon after start, so a restarted instance catches up.
    firstDelayMs: Math.min(options.intervalMs, 1_000),
    logger: options.logger,
    async pass() {
      const before = Math.floor((now() - options.keepMs) / 1000);
      const prune = (due: (trx: Knex.Transaction) => Knex.QueryBuilder) =>
        sweepDue<{ id: string }, void>(options.knex, {
          due,
          limit: options.batchSize,
          apply: (trx, rows) =>
            deleteEvents(
              trx,
              rows.map((row) => row.id),
            ),
        });
      let { taken: pruned } = await prune((trx) => eventsPastRetention(trx, before));
      // Test events past the test data retention, when it is the shorter (record 0213).
      if (options.keepTestMs !== undefined && options.keepTestMs < options.keepMs && pruned < options.batchSize) {
        const beforeTest = Math.floor((now() - options.keepTestMs) / 1000);
        const test = await prune((trx) => eventsPastRetention(trx, beforeTest, 'test'));
        if (test.taken > 0) options.logger.info({ events: test.taken }, 'pruned test events past the test data retention');
        pruned += test.taken;
      }
      if (pruned > 0) options.logger.info({ events: pruned }, 'pruned events past their retention, with their deliveries and attempts');
      // Finished replays are kept as long as the events they replayed.
      const replays = await pruneFinishedReplays(options.knex, new Date(before * 1000), options.batchSize);
      return { done: pruned + replays, more: pruned >= options.batchSize || replays === options.batchSize };
    },
  });
}
