import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

// The test data sweep's queries (record 0213). Every one of them names `environment = 'test'`:
// live rows are never selected, whatever their age.

const table = (name: string) => `${SCHEMA}.${name}`;

/**
 * Test orders past the retention, oldest first, as a query for a sweep (`sweepDue` adds the limit
 * and the lock): those on no clock by their creation (real time), those on a clock by the
 * creation of their clock, whose time may be anywhere (record 0213).
 */
export function testOrdersPastRetention(trx: Knex.Transaction, before: number): Knex.QueryBuilder {
  const oldClocks = trx(table('test_clocks')).select('id').where('environment', 'test').andWhere('created_at', '<', before);
  return trx(table('orders'))
    .select('id')
    .where('environment', 'test')
    .andWhere((old) => old.where((plain) => plain.whereNull('test_clock').andWhere('created_at', '<', before)).orWhereIn('test_clock', oldClocks))
    .orderBy('created_at');
}

/** Deletes the test orders `ids` with their eSIMs. */
export async function deleteTestOrders(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await trx(table('esims')).whereIn('order_id', ids).andWhere('environment', 'test').delete();
  await trx(table('orders')).whereIn('id', ids).andWhere('environment', 'test').delete();
}

/** Test clocks past the retention whose orders are all gone (deleted by the sweep first), oldest first. */
export function testClocksPastRetention(trx: Knex.Transaction, before: number): Knex.QueryBuilder {
  return trx(`${table('test_clocks')} as c`)
    .select('c.id')
    .where('c.environment', 'test')
    .andWhere('c.created_at', '<', before)
    .whereNotExists(trx(table('orders')).select(trx.raw('1')).whereRaw('orders.test_clock = c.id'))
    .whereNotExists(trx(table('esims')).select(trx.raw('1')).whereRaw('esims.test_clock = c.id'))
    .orderBy('c.created_at');
}

export async function deleteTestClocks(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await trx(table('test_clocks')).whereIn('id', ids).andWhere('environment', 'test').delete();
}

/** Counters of the test eSIMs quota for days before `day` (record 0212): nothing reads them again. */
export async function deleteTestEsimDaysBefore(knex: Knex, day: number): Promise<number> {
  return knex(table('test_esims_per_day')).where('day', '<', day).delete();
}
