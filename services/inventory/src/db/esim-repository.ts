import type { Environment, EsimState, Metadata } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { looksLikeIccid, type EsimRecord } from '../domain/esim.ts';
import { SCHEMA } from './schema.ts';

export type EsimRow = Omit<
  EsimRecord,
  'data_used_bytes' | 'data_limit_bytes' | 'expires_at' | 'install_by' | 'created_at' | 'updated_at' | 'thresholds_notified'
> & {
  // bigint columns arrive as strings from `pg`.
  data_used_bytes: string | number;
  data_limit_bytes: string | number | null;
  expires_at: string | number | null;
  install_by: string | number | null;
  created_at: string | number;
  updated_at: string | number;
  thresholds_notified: (string | number)[];
};

/** Columns of a live eSIM that only the supplier's reports use (see `db/supplier-report-repository.ts`). */
export interface SupplierColumns {
  supplier_checked_at?: string | number | null;
  supplier_observed_at?: string | number | null;
  supplier_next_check_at?: string | number | null;
  // `esim.expiring`'s memory (see `db/expiring-repository.ts`).
  expiring_notified_for?: string | number | null;
  expiring_notified_days?: number | null;
  vendor_notices_expiry?: boolean;
}

const num = (value: string | number): number => Number(value);
const numOrNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

// The supplier's bookkeeping columns (reconciliation) and `esim.expiring`'s memory are not part of the record.
export const esimFromRow = ({
  supplier_checked_at: _checked,
  supplier_observed_at: _observed,
  supplier_next_check_at: _next,
  expiring_notified_for: _notifiedFor,
  expiring_notified_days: _notifiedDays,
  vendor_notices_expiry: _vendorNotices,
  ...row
}: EsimRow & SupplierColumns): EsimRecord => ({
  ...row,
  data_used_bytes: num(row.data_used_bytes),
  data_limit_bytes: numOrNull(row.data_limit_bytes),
  expires_at: numOrNull(row.expires_at),
  install_by: numOrNull(row.install_by),
  created_at: num(row.created_at),
  updated_at: num(row.updated_at),
  thresholds_notified: row.thresholds_notified.map(Number),
});

const esims = (db: Knex) => db.withSchema(SCHEMA).from('esims');

/** The position after which the next page starts: the last eSIM shown. */
export interface EsimPosition {
  created_at: number;
  id: string;
}

/** The eSIMs' rows, not yet written (see `oneStatement`). */
export function esimInsertion(db: Knex, records: EsimRecord[]): Knex.QueryBuilder {
  return esims(db).insert(records.map((record) => ({ ...record, metadata: JSON.stringify(record.metadata) })));
}

/** By id or ICCID, whoever owns it; `lock` takes the row lock for the caller's transaction. */
export async function findEsim(db: Knex, idOrIccid: string, options: { lock?: boolean } = {}): Promise<EsimRecord | undefined> {
  const query = esims(db)
    .select('*')
    .where(looksLikeIccid(idOrIccid) ? 'iccid' : 'id', idOrIccid)
    .first();
  if (options.lock) query.forUpdate();
  const row = (await query) as EsimRow | undefined;
  return row && esimFromRow(row);
}

/** Which of `iccids` belong to an eSIM we recorded. */
export async function recordedIccids(db: Knex, iccids: string[]): Promise<Set<string>> {
  const rows = (await esims(db).select('iccid').whereIn('iccid', iccids)) as { iccid: string }[];
  return new Set(rows.map((row) => row.iccid));
}

export async function updateEsimRow(
  db: Knex,
  id: string,
  changes: Partial<Pick<EsimRecord, 'state' | 'expired_reason' | 'data_used_bytes' | 'thresholds_notified' | 'expires_at' | 'updated_at' | 'metadata'>>,
): Promise<void> {
  const { metadata, ...rest } = changes;
  await esims(db)
    .where('id', id)
    .update({ ...rest, ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }) });
}

/**
 * A page of one account's eSIMs in one environment, newest first then by id, after `after`;
 * with `metadata`, only eSIMs whose metadata contains every pair (jsonb `@>`, served by the GIN index).
 */
export async function esimPage(
  db: Knex,
  owner: { accountId: string; environment: Environment },
  after: EsimPosition | undefined,
  limit: number,
  metadata: Metadata = {},
): Promise<EsimRecord[]> {
  const query = esims(db)
    .select('*')
    .where({ account_id: owner.accountId, environment: owner.environment })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (after) query.andWhereRaw('(created_at, id) < (?, ?)', [after.created_at, after.id]);
  if (Object.keys(metadata).length > 0) query.andWhereRaw('metadata @> ?::jsonb', [JSON.stringify(metadata)]);
  return ((await query) as EsimRow[]).map(esimFromRow);
}

/**
 * eSIMs whose validity has ended and that are not expired yet, oldest validity first: the expiry
 * sweep's due rows (see `sweepDue`). eSIMs on a test clock live in the clock's time, not in real
 * time: only an advance of their clock expires them.
 */
export function esimsPastValidity(db: Knex, now: number): Knex.QueryBuilder {
  return (
    esims(db)
      .select('*')
      .whereNot('state', 'expired' satisfies EsimState)
      .andWhere('expires_at', '<=', now)
      .whereNull('test_clock')
      // A live eSIM ends on its supplier's word (a callback or reconciliation), never on our clock (record 0230).
      .andWhere('environment', 'test')
      .orderBy('expires_at')
  );
}

/**
 * Locks every eSIM of a test clock whose validity ends by `until` and that is not expired yet, in
 * order of expiry. Nothing is skipped: the advance that moves the clock past them must expire
 * them all, so it waits for a PATCH or usage that holds one.
 */
export async function lockEsimsDueOnClock(db: Knex, clockId: string, until: number, limit: number): Promise<EsimRecord[]> {
  const rows = (await esims(db)
    .select('*')
    .where('test_clock', clockId)
    .whereNot('state', 'expired' satisfies EsimState)
    .andWhere('expires_at', '<=', until)
    .orderBy([{ column: 'expires_at' }, { column: 'id' }])
    .limit(limit)
    .forUpdate()) as EsimRow[];
  return rows.map(esimFromRow);
}

/** Whether a database error is the ICCID uniqueness check. */
export function isDuplicateIccid(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && e.constraint === 'esims_iccid_key';
}
