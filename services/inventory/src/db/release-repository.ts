import { claimDue } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { SupplierReleaseRecord } from '../domain/supplier-release.ts';
import { SCHEMA } from './schema.ts';

/** The work signal of supplier releases: raised when one is recorded or retried. */
export const RELEASES_SIGNAL = 'inventory:supplier-releases';

/** Profiles of an unrecorded live order, waiting to be released at the supplier. */
export type DueRelease = Pick<SupplierReleaseRecord, 'order_reference' | 'account_id' | 'iccids' | 'reason' | 'attempts'>;

interface DueReleaseRow extends Omit<DueRelease, 'attempts'> {
  attempts: string | number;
}

export interface ReleasePosition {
  created_at: number;
  order_reference: string;
}

type FullRow = Record<keyof SupplierReleaseRecord, unknown>;

// bigint and integer columns come back as strings from node-postgres.
const toRecord = (row: FullRow): SupplierReleaseRecord => ({
  order_reference: String(row.order_reference),
  account_id: String(row.account_id),
  iccids: row.iccids as string[],
  reason: String(row.reason),
  attempts: Number(row.attempts),
  status: row.status as SupplierReleaseRecord['status'],
  next_attempt_at: Number(row.next_attempt_at),
  last_error: row.last_error as string | null,
  created_at: Number(row.created_at),
  finished_at: row.finished_at === null ? null : Number(row.finished_at),
});

const releases = (db: Knex) => db.withSchema(SCHEMA).from('supplier_releases');

/** Records the profiles to release; recording the same order twice keeps the first. */
export async function insertRelease(db: Knex, release: Omit<DueRelease, 'attempts'>, nowMs: number): Promise<void> {
  await releases(db)
    .insert({ ...release, status: 'pending', attempts: 0, next_attempt_at: nowMs, created_at: nowMs })
    .onConflict('order_reference')
    .ignore();
}

/**
 * Claims up to `limit` due releases by pushing their next attempt `leaseMs` ahead, in one
 * statement: the supplier is then called outside any transaction, and another worker skips
 * them until the lease runs out (a crashed worker's claim simply lapses).
 */
export async function claimDueReleases(db: Knex, nowMs: number, leaseMs: number, limit: number): Promise<DueRelease[]> {
  const rows = await claimDue<DueReleaseRow>(db, {
    table: `${SCHEMA}.supplier_releases`,
    key: 'order_reference',
    due: { sql: "status = 'pending' and next_attempt_at <= ?", bindings: [nowMs] },
    orderBy: 'next_attempt_at',
    limit,
    set: { sql: 'next_attempt_at = ?, attempts = attempts + 1', bindings: [nowMs + leaseMs] },
    returning: ['order_reference', 'account_id', 'iccids', 'reason', 'attempts'],
  });
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

export async function finishRelease(db: Knex, orderReference: string, status: 'released' | 'abandoned', nowMs: number, lastError?: string): Promise<void> {
  await releases(db)
    .where('order_reference', orderReference)
    .update({ status, finished_at: nowMs, last_error: lastError ?? null });
}

export async function retryReleaseLater(db: Knex, orderReference: string, nextAttemptAt: number, lastError: string): Promise<void> {
  await releases(db).where({ order_reference: orderReference, status: 'pending' }).update({ next_attempt_at: nextAttemptAt, last_error: lastError });
}

/** Newest first (then by order reference), optionally of one status, after `after`. */
export async function releasePage(
  db: Knex,
  filter: { status?: SupplierReleaseRecord['status'] | undefined },
  after: ReleasePosition | undefined,
  limit: number,
): Promise<SupplierReleaseRecord[]> {
  const query = releases(db)
    .select('*')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'order_reference', order: 'desc' },
    ])
    .limit(limit);
  if (filter.status) query.where('status', filter.status);
  if (after) query.andWhereRaw('(created_at, order_reference) < (?, ?)', [after.created_at, after.order_reference]);
  return ((await query) as FullRow[]).map(toRecord);
}

/**
 * The operator's retry: a release not yet released goes back to pending, due now, with its
 * attempts counted from zero again (so the backoff starts over). Answers the row after the
 * change, the released row unchanged, or undefined when there is none.
 */
export async function retryReleaseNow(db: Knex, orderReference: string, nowMs: number): Promise<SupplierReleaseRecord | undefined> {
  const [updated] = (await releases(db)
    .where('order_reference', orderReference)
    .whereIn('status', ['pending', 'abandoned'])
    .update({ status: 'pending', attempts: 0, next_attempt_at: nowMs, finished_at: null })
    .returning('*')) as FullRow[];
  if (updated) return toRecord(updated);
  const found = (await releases(db).where('order_reference', orderReference).first()) as FullRow | undefined;
  return found && toRecord(found);
}
