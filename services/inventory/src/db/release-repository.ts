import type { Knex } from 'knex';
import { SCHEMA } from './migrations/schema.ts';

/** Profiles of an unrecorded live order, waiting to be released at the supplier. */
export interface SupplierRelease {
  order_reference: string;
  account_id: string;
  iccids: string[];
  reason: string;
  attempts: number;
}

interface ReleaseRow extends Omit<SupplierRelease, 'attempts'> {
  attempts: string | number;
}

const releases = (db: Knex) => db.withSchema(SCHEMA).from('supplier_releases');

export const releaseRepository = {
  /** Records the profiles to release; recording the same order twice keeps the first. */
  async record(db: Knex, release: Omit<SupplierRelease, 'attempts'>, nowMs: number): Promise<void> {
    await releases(db)
      .insert({ ...release, status: 'pending', attempts: 0, next_attempt_at: nowMs, created_at: nowMs })
      .onConflict('order_reference')
      .ignore();
  },

  /**
   * Claims up to `limit` due releases by pushing their next attempt `leaseMs` ahead, in one
   * statement: the supplier is then called outside any transaction, and another worker skips
   * them until the lease runs out (a crashed worker's claim simply lapses).
   */
  async claimDue(db: Knex, nowMs: number, leaseMs: number, limit: number): Promise<SupplierRelease[]> {
    const due = releases(db)
      .select('order_reference')
      .where('status', 'pending')
      .andWhere('next_attempt_at', '<=', nowMs)
      .orderBy('next_attempt_at')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = await releases(db)
      .whereIn('order_reference', due)
      .update({ next_attempt_at: nowMs + leaseMs, attempts: db.raw('attempts + 1') })
      .returning<ReleaseRow[]>(['order_reference', 'account_id', 'iccids', 'reason', 'attempts']);
    return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
  },

  async finish(db: Knex, orderReference: string, status: 'released' | 'abandoned', nowMs: number, lastError?: string): Promise<void> {
    await releases(db).where('order_reference', orderReference).update({ status, finished_at: nowMs, last_error: lastError ?? null });
  },

  async retryLater(db: Knex, orderReference: string, nextAttemptAt: number, lastError: string): Promise<void> {
    await releases(db).where({ order_reference: orderReference, status: 'pending' }).update({ next_attempt_at: nextAttemptAt, last_error: lastError });
  },
};
