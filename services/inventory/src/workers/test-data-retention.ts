import { startPoller, sweepDue, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { deleteTestClocks, deleteTestEsimDaysBefore, deleteTestOrders, testClocksPastRetention, testOrdersPastRetention } from '../db/test-data-retention.ts';

export interface TestDataRetentionOptions {
  knex: Knex;
  logger: Logger;
  /** How long test data is kept (TEST_DATA_RETENTION_MS). */
  keepMs: number;
  intervalMs: number;
  /** Orders (with their eSIMs) or clocks deleted per transaction. */
  batchSize: number;
  now?: () => number;
}

/**
 * The test data sweep (record 0213), on the platform's poller (record 0015): test orders older than
 * the retention with their eSIMs, then test clocks older than it once their orders are gone, then
 * the quota's counters of past days; a batch per transaction, rows another instance holds skipped,
 * and a full batch brings the next pass at once. Live data is never selected.
 */
export function startTestDataRetention(options: TestDataRetentionOptions): Poller {
  const now = options.now ?? Date.now;
  return startPoller({
    name: 'test data retention',
    intervalMs: options.intervalMs,
    firstDelayMs: Math.min(options.intervalMs, 1_000),
    logger: options.logger,
    async pass() {
      const cutoffMs = now() - options.keepMs;
      const before = Math.floor(cutoffMs / 1000);
      const orders = await sweepDue<{ id: string }, void>(options.knex, {
        due: (trx) => testOrdersPastRetention(trx, before),
        limit: options.batchSize,
        apply: (trx, rows) =>
          deleteTestOrders(
            trx,
            rows.map((row) => row.id),
          ),
      });
      // Clocks wait for their orders: while any is left, the next pass comes back for them.
      const clocks =
        orders.taken === options.batchSize
          ? { taken: 0 }
          : await sweepDue<{ id: string }, void>(options.knex, {
              due: (trx) => testClocksPastRetention(trx, before),
              limit: options.batchSize,
              apply: (trx, rows) =>
                deleteTestClocks(
                  trx,
                  rows.map((row) => row.id),
                ),
            });
      const days = await deleteTestEsimDaysBefore(options.knex, Math.floor(cutoffMs / 86_400_000));
      if (orders.taken + clocks.taken > 0) options.logger.info({ orders: orders.taken, clocks: clocks.taken }, 'deleted test data past its retention');
      return { done: orders.taken + clocks.taken + days, more: orders.taken === options.batchSize || clocks.taken === options.batchSize };
    },
  });
}
