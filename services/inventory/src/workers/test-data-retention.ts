import { deleteLockedBatch, startRetentionSweep, type Logger, type Poller } from '@connectivity/platform';
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

const DAY_MS = 86_400_000;

/**
 * The test data sweep (record 0213), on the platform's retention sweep: test orders older than the
 * retention with their eSIMs, then test clocks older than it once their orders are gone (a full
 * batch of orders brings the next pass at once, before the clocks), then the quota's counters of
 * past days; a batch per transaction, rows another instance holds skipped. Live data is never selected.
 */
export function startTestDataRetention(options: TestDataRetentionOptions): Poller {
  const { knex } = options;
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return startRetentionSweep({
    name: 'test data retention',
    logger: options.logger,
    intervalMs: options.intervalMs,
    keepMs: options.keepMs,
    batch: options.batchSize,
    ...(options.now && { now: options.now }),
    steps: [
      {
        what: 'orders',
        deleteBatch: (cutoffMs, limit) =>
          deleteLockedBatch(knex, { due: (trx) => testOrdersPastRetention(trx, seconds(cutoffMs)), limit, remove: deleteTestOrders }),
      },
      {
        what: 'clocks',
        deleteBatch: (cutoffMs, limit) =>
          deleteLockedBatch(knex, { due: (trx) => testClocksPastRetention(trx, seconds(cutoffMs)), limit, remove: deleteTestClocks }),
      },
      // A day's counters are few (one per account that used the sandbox that day): all at once.
      { what: 'quota days', deleteBatch: (cutoffMs) => deleteTestEsimDaysBefore(knex, Math.floor(cutoffMs / DAY_MS)) },
    ],
  });
}
