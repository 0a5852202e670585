import { createHash } from 'node:crypto';
import { profileReportSchema, type ProfileReport, type SupplierVendor } from '@connectivity/contracts';
import { claimDue } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { EsimRecord } from '../domain/esim.ts';
import type { ExpiringNotified } from '../domain/expiring.ts';
import { expiringOf, type ExpiringRow } from './expiring-repository.ts';
import { SCHEMA } from './schema.ts';

/** The work signal of the report inbox: raised after a commit that stored reports. */
export const SUPPLIER_REPORTS_SIGNAL = 'inventory:supplier-reports';

const reports = (db: Knex) => db.withSchema(SCHEMA).from('supplier_reports');
const esims = (db: Knex) => db.withSchema(SCHEMA).from('esims');

/**
 * A report's key in the inbox: a digest of the vendor and the report as parsed (the schema fixes
 * the order of its fields), so the same callback delivered twice, or two callbacks that say the
 * same thing, store one row.
 */
export function reportKey(vendor: SupplierVendor, report: ProfileReport): string {
  return createHash('sha256')
    .update(vendor)
    .update('\n')
    .update(JSON.stringify(profileReportSchema.parse(report)))
    .digest('hex');
}

/**
 * Stores the reports not stored yet, with the trace of the callback that brought them (W3C
 * headers: the worker that applies them continues it); resolves with how many were new.
 */
export async function storeReports(
  db: Knex,
  vendor: SupplierVendor,
  items: readonly ProfileReport[],
  nowMs: number,
  traceHeaders: Record<string, string>,
): Promise<number> {
  if (items.length === 0) return 0;
  const rows = new Map(items.map((report) => [reportKey(vendor, report), report]));
  const trace_headers = JSON.stringify(traceHeaders);
  const stored: { id: string }[] = await reports(db)
    .insert([...rows].map(([id, report]) => ({ id, vendor, iccid: report.iccid, report: JSON.stringify(report), received_at: nowMs, trace_headers })))
    .onConflict('id')
    .ignore()
    .returning('id');
  return stored.length;
}

export interface InboxRow {
  id: string;
  vendor: SupplierVendor;
  iccid: string;
  report: ProfileReport | string;
  /** The callback's trace (W3C headers); null on rows stored before they were kept. */
  trace_headers: Record<string, string> | string | null;
}

/** The inbox's due rows (not applied yet), oldest first: the report worker's sweep (see `sweepDue`). */
export function dueReports(db: Knex): Knex.QueryBuilder {
  return reports(db).select('id', 'vendor', 'iccid', 'report', 'trace_headers').whereNull('applied_at').orderBy('received_at');
}

// jsonb arrives parsed from PostgreSQL, as text from some drivers.
const jsonOf = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** The report a row holds. */
export const reportOf = (row: InboxRow): ProfileReport => profileReportSchema.parse(jsonOf(row.report));

/** The trace headers a row holds (none on old rows). */
export const traceHeadersOf = (row: InboxRow): Record<string, string> =>
  row.trace_headers == null ? {} : (jsonOf(row.trace_headers) as Record<string, string>);

/** Applied reports older than `appliedBeforeMs`, oldest first: the inbox retention's sweep. */
export function reportsPastRetention(db: Knex, appliedBeforeMs: number): Knex.QueryBuilder {
  return reports(db).select('id').whereNotNull('applied_at').where('applied_at', '<', appliedBeforeMs).orderBy('applied_at');
}

export async function deleteReports(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await reports(trx).whereIn('id', ids).delete();
}

export async function markReportsApplied(trx: Knex.Transaction, ids: readonly string[], nowMs: number): Promise<void> {
  if (ids.length > 0) await reports(trx).whereIn('id', ids).update({ applied_at: nowMs });
}

/** A live eSIM under its row lock, with the time of the newest supplier report applied to it and its last `esim.expiring`. */
export async function lockEsimForReport(
  trx: Knex.Transaction,
  iccid: string,
): Promise<{ esim: EsimRecord; observedAt: number | null; notified: ExpiringNotified } | undefined> {
  const row = (await esims(trx).select('*').where('iccid', iccid).forUpdate().first()) as ExpiringRow | undefined;
  if (!row) return undefined;
  return { ...expiringOf(row), observedAt: row.supplier_observed_at == null ? null : Number(row.supplier_observed_at) };
}

/** Writes what a report changed on the locked eSIM, and the supplier time it was observed at. */
export async function writeReportOutcome(trx: Knex.Transaction, esim: EsimRecord, observedAt: number | null): Promise<void> {
  const { state, expired_reason, data_used_bytes, thresholds_notified, expires_at, updated_at } = esim;
  await esims(trx)
    .where('id', esim.id)
    .update({ state, expired_reason, data_used_bytes, thresholds_notified, expires_at, updated_at, supplier_observed_at: observedAt });
}

export interface EsimToCheck {
  id: string;
  iccid: string;
  account_id: string;
}

/**
 * Claims up to `limit` live eSIMs that are not final for reconciliation, never checked first then
 * least recently checked, and not checked since `checkedBeforeMs`, in one statement: their
 * `supplier_checked_at` becomes now, which both records the check and keeps another instance off
 * them (it takes the next ones in the order).
 */
export async function claimEsimsToCheck(db: Knex, nowMs: number, checkedBeforeMs: number, limit: number): Promise<EsimToCheck[]> {
  const nowSeconds = Math.floor(nowMs / 1000);
  return claimDue<EsimToCheck>(db, {
    table: `${SCHEMA}.esims`,
    key: 'id',
    due: {
      // Record 0234: an eSIM whose supplier answer cannot have changed yet (its cache, its rate) waits.
      sql:
        "environment = 'live' and state <> 'expired' and (supplier_checked_at is null or supplier_checked_at <= ?) " +
        'and (supplier_next_check_at is null or supplier_next_check_at <= ?)',
      bindings: [checkedBeforeMs, nowMs],
    },
    // Record 0234: those near an expiry (a day) or a usage threshold (within 10 points below 50, 80 or
    // 100 %) first, then those in use, then the released ones (nothing happens to them until installed).
    orderBy:
      `(case when expires_at is not null and expires_at <= ${nowSeconds + 86_400} then 0 ` +
      'when data_limit_bytes > 0 and (data_used_bytes * 100 >= data_limit_bytes * 90 ' +
      'or (data_used_bytes * 100 >= data_limit_bytes * 70 and data_used_bytes * 100 < data_limit_bytes * 80) ' +
      'or (data_used_bytes * 100 >= data_limit_bytes * 40 and data_used_bytes * 100 < data_limit_bytes * 50)) then 0 ' +
      "when state = 'released' then 2 else 1 end), supplier_checked_at asc nulls first, id",
    limit,
    set: { sql: 'supplier_checked_at = ?', bindings: [nowMs] },
    returning: ['id', 'iccid', 'account_id'],
  });
}

/** When the supplier may next be asked about an eSIM (record 0234): its answer will not change sooner. */
export async function deferNextCheck(db: Knex, iccid: string, atMs: number): Promise<void> {
  await esims(db).where('iccid', iccid).update({ supplier_next_check_at: atMs });
}

/**
 * Takes up to `wanted` calls from the live supplier's poll budget (record 0234): `budget` per
 * `windowMs`, shared by every inventory instance through this row (one statement, under its lock).
 * Resolves with how many were granted; `giveBack` returns the ones not used.
 */
export async function takePollBudget(db: Knex, nowMs: number, windowMs: number, budget: number, wanted: number): Promise<number> {
  await db.raw('insert into ??.supplier_poll_budget (supplier, window_start, spent) values (?, ?, 0) on conflict (supplier) do nothing', [
    SCHEMA,
    'live',
    nowMs,
  ]);
  const result: { rows: { granted: number | string }[] } = await db.raw(
    `with old as (select window_start, spent from ??.supplier_poll_budget where supplier = 'live' for update),
          fresh as (select case when window_start <= ? then ? else window_start end as window_start,
                           case when window_start <= ? then 0 else spent end as spent from old)
     update ??.supplier_poll_budget b set window_start = fresh.window_start, spent = fresh.spent + least(?, greatest(0, ? - fresh.spent))
     from fresh where b.supplier = 'live'
     returning least(?, greatest(0, ? - fresh.spent)) as granted`,
    [SCHEMA, nowMs - windowMs, nowMs, nowMs - windowMs, SCHEMA, wanted, budget, wanted, budget],
  );
  return Number(result.rows[0]?.granted ?? 0);
}

export async function givePollBudgetBack(db: Knex, unused: number): Promise<void> {
  if (unused <= 0) return;
  await db.raw("update ??.supplier_poll_budget set spent = greatest(0, spent - ?) where supplier = 'live'", [SCHEMA, unused]);
}
