import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

/** The UTC day of `at`, as days since the epoch: the period of the test eSIMs quota. */
export const utcDay = (at: Date): number => Math.floor(at.getTime() / 86_400_000);

/**
 * Takes `quantity` test eSIMs of the account's quota of the day (record 0212), in one statement
 * that changes the counter only if it stays within `limit`: false when it would not, and nothing
 * is taken. Concurrent orders update the one row one after the other, so together they cannot
 * pass the quota.
 */
export async function takeTestEsims(db: Knex, accountId: string, day: number, quantity: number, limit: number): Promise<boolean> {
  const rows = (await countTestEsims(db, accountId, day, quantity, limit).returning('created')) as unknown[];
  return rows.length === 1;
}

/** Gives back what `takeTestEsims` took for an order that was not made. */
export async function giveBackTestEsims(db: Knex, accountId: string, day: number, quantity: number): Promise<void> {
  await db
    .withSchema(SCHEMA)
    .from('test_esims_per_day')
    .where({ account_id: accountId, day })
    .update({ created: db.raw('greatest(created - ?::int, 0)', [quantity]) });
}

function countTestEsims(db: Knex, accountId: string, day: number, quantity: number, limit: number): Knex.QueryBuilder {
  const table = `${SCHEMA}.test_esims_per_day`;
  return db
    .into(db.raw('?? (account_id, day, created)', [table]))
    .insert(
      db.select(db.raw('?::text as account_id, ?::int as day, ?::int as created', [accountId, day, quantity])).whereRaw('?::int <= ?::int', [quantity, limit]),
    )
    .onConflict(['account_id', 'day'])
    .merge({ created: db.raw('test_esims_per_day.created + excluded.created') })
    .where(db.raw('test_esims_per_day.created + excluded.created <= ?::int', [limit]));
}

/**
 * Holds the account's test clocks against concurrent creates until the transaction ends, then
 * counts those not deleted (record 0212): two creates at once cannot both take the last place.
 */
export async function lockedTestClockCount(trx: Knex.Transaction, accountId: string): Promise<number> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`inventory.test_clocks:${accountId}`]);
  const row = (await trx
    .withSchema(SCHEMA)
    .from('test_clocks')
    .where({ account_id: accountId, environment: 'test' })
    .whereNull('deleted_at')
    .count({ n: '*' })
    .first()) as { n: string | number } | undefined;
  return Number(row?.n ?? 0);
}
