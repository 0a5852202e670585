import { deleteLockedBatch, startRetentionSweep, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { deleteReports, reportsPastRetention } from '../db/supplier-report-repository.ts';

export interface SupplierReportRetentionOptions {
  knex: Knex;
  logger: Logger;
  /** How long an applied report stays in the inbox. */
  keepMs: number;
  intervalMs: number;
  batchSize: number;
  now?: () => number;
}

/**
 * Deletes the inbox's reports applied longer ago than `keepMs`, a batch per transaction (rows
 * another instance holds are skipped), on the platform's retention sweep. Reports not applied yet
 * are never touched. A callback the vendor delivers again after its report was deleted is stored
 * and applied again, and changes nothing: reports only move an eSIM forward (record 0153).
 */
export function startSupplierReportRetention(options: SupplierReportRetentionOptions): Poller {
  const { knex } = options;
  return startRetentionSweep({
    name: 'supplier report retention',
    logger: options.logger,
    intervalMs: options.intervalMs,
    keepMs: options.keepMs,
    batch: options.batchSize,
    ...(options.now && { now: options.now }),
    steps: [
      {
        what: 'reports',
        deleteBatch: (cutoffMs, limit) => deleteLockedBatch(knex, { due: (trx) => reportsPastRetention(trx, cutoffMs), limit, remove: deleteReports }),
      },
    ],
  });
}
