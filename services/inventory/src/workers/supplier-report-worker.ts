import { continuingTrace, domainMetrics, startPoller, sweepDue, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { dueReports, markReportsApplied, reportOf, SUPPLIER_REPORTS_SIGNAL, traceHeadersOf, type InboxRow } from '../db/supplier-report-repository.ts';
import { applyReportIn, type ReportOutcome } from '../use-cases/apply-supplier-report.ts';

export interface SupplierReportWorkerOptions {
  knex: Knex;
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
  now?: () => Date;
}

export interface SupplierReportWorker {
  /** Applies every stored report not applied yet; resolves with how many it took. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Applies the reports of verified callbacks from the inbox: a batch of rows is locked (rows another
 * instance holds are skipped) and each report is applied to its eSIM under the eSIM's row lock, in
 * the same transaction that marks it applied, so a report is applied once whatever crashes. The
 * eSIMs are locked in ICCID order, so two instances never wait on each other in a cycle. A report
 * of an ICCID we never sold is marked applied and dropped.
 *
 * Each report is applied in a span that continues the trace of the callback that brought it, so
 * the eSIM's events, and their webhooks, are in the callback's trace (record 0153); what each
 * report did is counted per vendor once the batch has committed.
 */
export function startSupplierReportWorker(options: SupplierReportWorkerOptions): SupplierReportWorker {
  const now = options.now ?? (() => new Date());
  const limit = options.batchSize ?? 100;

  async function pass(): Promise<{ done: number; more: boolean }> {
    const at = now();
    const { taken, result: outcomes } = await sweepDue<InboxRow, { vendor: string; outcome: ReportOutcome }[]>(options.knex, {
      due: dueReports,
      limit,
      apply: async (trx, rows) => {
        const ordered = [...rows].sort((a, b) => (a.iccid < b.iccid ? -1 : a.iccid > b.iccid ? 1 : 0));
        const outcomes: { vendor: string; outcome: ReportOutcome }[] = [];
        for (const row of ordered) {
          const outcome = await continuingTrace('supplier report apply', traceHeadersOf(row), { 'supplier.vendor': row.vendor }, async (span) => {
            const outcome = await applyReportIn(trx, reportOf(row), at);
            span.setAttribute('supplier.report.outcome', outcome);
            return outcome;
          });
          outcomes.push({ vendor: row.vendor, outcome });
        }
        await markReportsApplied(
          trx,
          rows.map((row) => row.id),
          at.getTime(),
        );
        return outcomes;
      },
    });
    for (const { vendor, outcome } of outcomes) domainMetrics.supplierReportApplied(vendor, outcome);
    const unknown = outcomes.filter(({ outcome }) => outcome === 'unknown').length;
    if (unknown > 0) options.logger.info({ unknown }, 'supplier reports of profiles we never sold were dropped');
    return { done: taken, more: taken === limit };
  }

  const poller = startPoller({ name: 'supplier reports', intervalMs: options.intervalMs, wakeOn: [SUPPLIER_REPORTS_SIGNAL], logger: options.logger, pass });
  return { runOnce: () => poller.runOnce(), stop: () => poller.stop() };
}
