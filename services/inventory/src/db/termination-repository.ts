import type { TerminationRefund } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { TerminationMoney } from './refund-ledger.ts';
import { SCHEMA } from './schema.ts';

// The fact "the supplier terminated this eSIM's profile", kept until the move to expired is recorded.
const terminations = (db: Knex) => db.withSchema(SCHEMA).from('supplier_terminations');

/** Records the fact, and what the supplier did about money, in its own write; concurrent cancels of one eSIM keep the first. */
export async function recordTermination(db: Knex, esimId: string, nowMs: number, money: TerminationMoney): Promise<void> {
  // Of two cancels at once, the one that found nothing left to end ('none') must not hide what the
  // other did about money: a fact with more to say replaces it.
  await db.raw(
    `insert into ??.supplier_terminations (esim_id, terminated_at, refund, vendor_refund_id) values (?, ?, ?, ?)
       on conflict (esim_id) do update set refund = excluded.refund, vendor_refund_id = excluded.vendor_refund_id
       where supplier_terminations.refund is null or supplier_terminations.refund = 'none'`,
    [SCHEMA, esimId, nowMs, money.refund, money.vendor_refund_id],
  );
}

export async function terminationExists(db: Knex, esimId: string): Promise<boolean> {
  return (await terminations(db).where('esim_id', esimId).first('esim_id')) !== undefined;
}

/**
 * Removes the fact, in the transaction that records the move, and answers what the supplier did about
 * money (a fact written before refunds existed: nothing known, so no refund); undefined when there was none.
 */
export async function clearTermination(trx: Knex.Transaction, esimId: string): Promise<TerminationMoney | undefined> {
  const [row] = await terminations(trx)
    .where('esim_id', esimId)
    .delete()
    .returning<{ refund: TerminationRefund | null; vendor_refund_id: string | null }[]>(['refund', 'vendor_refund_id']);
  return row && { refund: row.refund ?? 'none', vendor_refund_id: row.vendor_refund_id };
}

/**
 * eSIMs that have a termination fact, by id: the termination sweep's due rows (see `sweepDue`).
 * The sweep locks the eSIM rows first, as a PATCH does, so the two never deadlock.
 */
export function esimsTerminated(db: Knex): Knex.QueryBuilder {
  return db.withSchema(SCHEMA).from('esims').select('*').whereIn('id', terminations(db).select('esim_id')).orderBy('id');
}
