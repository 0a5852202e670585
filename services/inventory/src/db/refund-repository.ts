import type { Environment, RefundStatus } from '@connectivity/contracts';
import { claimDue } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { RefundRecord } from '../domain/refund.ts';
import { SCHEMA } from './schema.ts';

const refunds = (db: Knex) => db.withSchema(SCHEMA).from('refunds');

type RefundRow = Omit<RefundRecord, 'amount_cents' | 'next_check_at' | 'created_at' | 'updated_at'> & {
  amount_cents: string | number;
  next_check_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
};

const toRecord = (row: RefundRow): RefundRecord => ({
  ...row,
  amount_cents: Number(row.amount_cents),
  next_check_at: row.next_check_at === null ? null : Number(row.next_check_at),
  created_at: Number(row.created_at),
  updated_at: Number(row.updated_at),
});

/** Writes the refund a cancel opens; an eSIM has at most one (a second cancel finds it and writes nothing). */
export async function insertRefund(trx: Knex.Transaction, refund: RefundRecord): Promise<boolean> {
  const inserted = await refunds(trx).insert(refund).onConflict('esim_id').ignore().returning('id');
  return inserted.length > 0;
}

export async function findRefund(db: Knex, id: string, options: { lock?: boolean } = {}): Promise<RefundRecord | undefined> {
  const query = refunds(db).select('*').where('id', id).first();
  if (options.lock) query.forUpdate();
  const row = (await query) as RefundRow | undefined;
  return row && toRecord(row);
}

export async function updateRefund(
  trx: Knex.Transaction,
  refund: Pick<RefundRecord, 'id' | 'status' | 'failure_reason' | 'next_check_at' | 'updated_at'>,
): Promise<void> {
  const { id, ...changes } = refund;
  await refunds(trx).where('id', id).update(changes);
}

/** The position after which the next page starts: the last refund shown. */
export interface RefundPosition {
  id: string;
}

/** A page of one account's refunds in one environment, newest first (ids grow with time). */
export async function refundPage(
  db: Knex,
  owner: { accountId: string; environment: Environment },
  filter: { esim?: string | undefined; status?: RefundStatus | undefined },
  after: RefundPosition | undefined,
  limit: number,
): Promise<RefundRecord[]> {
  const query = refunds(db).select('*').where({ account_id: owner.accountId, environment: owner.environment }).orderBy('id', 'desc').limit(limit);
  if (filter.esim) query.where('esim_id', filter.esim);
  if (filter.status) query.where('status', filter.status);
  if (after) query.where('id', '<', after.id);
  return ((await query) as RefundRow[]).map(toRecord);
}

/** Claims pending refunds due for a look at the vendor, pushing their next look `leaseMs` ahead. */
export async function claimDueRefunds(db: Knex, nowMs: number, leaseMs: number, limit: number): Promise<RefundRecord[]> {
  const rows = await claimDue<RefundRow>(db, {
    table: `${SCHEMA}.refunds`,
    key: 'id',
    due: { sql: "status = 'pending' and next_check_at <= ?", bindings: [nowMs] },
    orderBy: 'next_check_at',
    limit,
    set: { sql: 'next_check_at = ?', bindings: [nowMs + leaseMs] },
    returning: ['*'],
  });
  return rows.map(toRecord);
}

/** The unit price the eSIM's order was charged: what its refund gives back. */
export async function unitPriceOfOrder(db: Knex, orderId: string): Promise<number> {
  const row = (await db.withSchema(SCHEMA).from('orders').select('price_cents').where('id', orderId).first()) as { price_cents: string | number } | undefined;
  return row === undefined ? 0 : Number(row.price_cents);
}
