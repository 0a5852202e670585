import type { ProfileReport } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { expireEsim, recordEsimEvents } from '../db/esim-events.ts';
import { markVendorNoticesExpiry, notifyExpiring } from '../db/expiring-repository.ts';
import { lockEsimForReport, writeReportOutcome } from '../db/supplier-report-repository.ts';
import { vendorExpiringMark } from '../domain/expiring.ts';
import { planSupplierReport, type ReportIgnored } from '../domain/supplier-report.ts';

/** What a report did: moved or changed the eSIM, said nothing new, named no eSIM of ours, or was ignored. */
export type ReportOutcome = 'applied' | 'unchanged' | 'unknown' | ReportIgnored;

/**
 * Applies a supplier's report to the eSIM it names, in the caller's transaction: the eSIM's row
 * is locked, the pure plan (`planSupplierReport`) decides from what the row holds now, and the
 * changes and their events (outbox) commit together. A callback and reconciliation that report
 * the same thing therefore take turns on the lock, and the second finds nothing new: each event
 * is written once. An ICCID we never sold is ignored. A supplier's notice that the validity ends soon
 * (Airalo's) becomes `esim.expiring` once per mark, after the report's own events.
 */
export async function applyReportIn(trx: Knex.Transaction, report: ProfileReport, at: Date): Promise<ReportOutcome> {
  const found = await lockEsimForReport(trx, report.iccid);
  if (!found) return 'unknown';
  const plan = planSupplierReport(found.esim, found.observedAt, report, Math.floor(at.getTime() / 1000));
  if (plan.ignored) return plan.ignored;
  if (plan.changed || plan.observedAt !== found.observedAt) await writeReportOutcome(trx, plan.esim, plan.observedAt);
  await recordEsimEvents(trx, plan.changes, at);
  // A supplier with notices of its own (Airalo) is left to them; its `3days`/`1days` notice is the event (record 0236).
  if (report.vendor_notices_expiry) await markVendorNoticesExpiry(trx, plan.esim.id);
  const mark = report.expiring_days_left === undefined ? null : vendorExpiringMark(plan.esim, found.notified, report.expiring_days_left);
  if (mark !== null) await notifyExpiring(trx, plan.esim, mark, at);
  return plan.changed || mark !== null ? 'applied' : 'unchanged';
}

/** `applyReportIn` in a transaction of its own (reconciliation: one eSIM at a time). */
export async function applySupplierReport(knex: Knex, report: ProfileReport, at = new Date()): Promise<ReportOutcome> {
  return knex.transaction((trx) => applyReportIn(trx, report, at));
}

/**
 * The supplier no longer knows a live eSIM we sold (record 0235): it deleted the profile from its
 * account (eSIM Go's returns process, an Airalo SIM recycled and gone). The eSIM ends `expired`
 * with `supplier_deleted` and its `esim.expired`; one already expired is left as it is.
 */
export async function applySupplierDeletion(knex: Knex, iccid: string, at = new Date()): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const found = await lockEsimForReport(trx, iccid);
    if (!found || found.esim.environment !== 'live' || found.esim.state === 'expired') return false;
    await expireEsim(trx, found.esim, 'supplier_deleted', at);
    return true;
  });
}
