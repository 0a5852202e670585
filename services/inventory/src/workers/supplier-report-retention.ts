import { startPoller, sweepDue, type Logger, type Poller } from '@connectivity/platform';
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
 * another instance holds are skipped). Reports not applied yet are never touched. A callback the
 * vendor delivers again after its report was deleted is stored and applied again, and changes
 * nothing: reports only move an eSIM forward (record 0153).
 */
export function startSupplierReportRetention(options: SupplierReportRetentionOptions): Poller {
  const now = options.now ?? Date.now;
  return startPoller({
    name: 'supplier report retention',
    intervalMs: options.intervalMs,
    firstDelayMs: Math.min(options.intervalMs, 1_000),
    logger: options.logger,
    async pass() {
      const { taken } = await sweepDue<{ id: string }, void>(options.knex, {
        due: (trx) => reportsPastRetention(trx, now() - options.keepMs),
        limit: options.batchSize,
        apply: (trx, rows) =>
          deleteReports(
            trx,
            rows.map((row) => row.id),
          ),
      });
      if (taken > 0) options.logger.info({ reports: taken }, 'deleted supplier reports applied before the inbox retention');
      return { done: taken, more: taken === options.batchSize };
    },
  });
}
