import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

// The fact "the supplier terminated this eSIM's profile", kept until the move to expired is recorded.
const terminations = (db: Knex) => db.withSchema(SCHEMA).from('supplier_terminations');

/** Records the fact in its own write; concurrent cancels of one eSIM keep the first. */
export async function recordTermination(db: Knex, esimId: string, nowMs: number): Promise<void> {
  await terminations(db).insert({ esim_id: esimId, terminated_at: nowMs }).onConflict('esim_id').ignore();
}

export async function terminationExists(db: Knex, esimId: string): Promise<boolean> {
  return (await terminations(db).where('esim_id', esimId).first('esim_id')) !== undefined;
}

/** Removes the fact, in the transaction that recorded the move; true when there was one. */
export async function clearTermination(trx: Knex.Transaction, esimId: string): Promise<boolean> {
  return (await terminations(trx).where('esim_id', esimId).delete()) > 0;
}

/**
 * eSIMs that have a termination fact, by id: the termination sweep's due rows (see `sweepDue`).
 * The sweep locks the eSIM rows first, as a PATCH does, so the two never deadlock.
 */
export function esimsTerminated(db: Knex): Knex.QueryBuilder {
  return db.withSchema(SCHEMA).from('esims').select('*').whereIn('id', terminations(db).select('esim_id')).orderBy('id');
}
