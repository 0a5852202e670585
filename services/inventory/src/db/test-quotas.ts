import { createBatcher, runPrepared, type Batcher } from '@connectivity/platform';
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
  // Prepared once per connection: every test order sends it, and its plan (the key's index) never depends on the table's size.
  const { rows } = await runPrepared(
    db,
    `insert into ${SCHEMA}.test_esims_per_day as t (account_id, day, created)
     select ?::text, ?::int, ?::int where ?::int <= ?::int
     on conflict (account_id, day) do update set created = t.created + excluded.created
     where t.created + excluded.created <= ?::int
     returning created`,
    [accountId, day, quantity, quantity, limit, limit],
  );
  return rows.length === 1;
}

export interface TestEsimsTake {
  accountId: string;
  day: number;
  quantity: number;
  limit: number;
}

/** The most takes one statement carries. */
const MAX_TAKES = 64;

/**
 * `takeTestEsims` for the orders that reach it at once, in one statement (record 0276): each
 * account's orders of the day are taken together when together they stay within the quota; the
 * orders of an account whose sum would pass it are then taken one by one, in the order they
 * came, so exactly those `takeTestEsims` alone would have let through pass.
 */
export function testEsimsTaker(db: Knex): Batcher<TestEsimsTake, boolean> {
  return createBatcher<TestEsimsTake, boolean>({
    name: 'test eSIMs taken',
    max: MAX_TAKES,
    async run(takes) {
      const input = JSON.stringify(takes.map((take) => ({ account_id: take.accountId, day: take.day, quantity: take.quantity, quota: take.limit })));
      // The counters are upserted in key order, so two batches sharing accounts lock them alike.
      const { rows } = await runPrepared<{ account_id: string; day: number }>(
        db,
        `with input as (
           select * from jsonb_to_recordset(?::jsonb) as i(account_id text, day int, quantity int, quota int)
         ), totals as (
           select account_id, day, sum(quantity)::int as quantity, min(quota) as quota from input group by account_id, day
         )
         insert into ${SCHEMA}.test_esims_per_day as t (account_id, day, created)
         select account_id, day, quantity from totals where quantity <= quota order by account_id, day
         on conflict (account_id, day) do update set created = t.created + excluded.created
         where t.created + excluded.created <= (select quota from totals s where s.account_id = excluded.account_id and s.day = excluded.day)
         returning account_id, day`,
        [input],
      );
      const taken = new Set(rows.map((row) => `${row.account_id} ${row.day}`));
      const outcomes: PromiseSettledResult<boolean>[] = [];
      for (const take of takes) {
        if (taken.has(`${take.accountId} ${take.day}`)) outcomes.push({ status: 'fulfilled', value: true });
        else outcomes.push(await takeTestEsims(db, take.accountId, take.day, take.quantity, take.limit).then(fulfilled, rejected));
      }
      return outcomes;
    },
  });
}

const fulfilled = (value: boolean): PromiseSettledResult<boolean> => ({ status: 'fulfilled', value });
const rejected = (reason: unknown): PromiseSettledResult<boolean> => ({ status: 'rejected', reason });

/** Gives back what `takeTestEsims` took for an order that was not made. */
export async function giveBackTestEsims(db: Knex, accountId: string, day: number, quantity: number): Promise<void> {
  await db
    .withSchema(SCHEMA)
    .from('test_esims_per_day')
    .where({ account_id: accountId, day })
    .update({ created: db.raw('greatest(created - ?::int, 0)', [quantity]) });
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
