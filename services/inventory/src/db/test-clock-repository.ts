import type { Environment } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { clockInstant, NO_ADVANCE, type TestClockRecord } from '../domain/test-clock.ts';
import { SCHEMA } from './schema.ts';

type BigintColumn = 'frozen_time' | 'advance_to' | 'advance_lease_until' | 'created_at' | 'deleted_at';
// bigint columns arrive as strings from `pg`.
type TestClockRow = Omit<TestClockRecord, BigintColumn> & {
  frozen_time: string | number;
  advance_to: string | number | null;
  advance_lease_until: string | number | null;
  created_at: string | number;
  deleted_at: string | number | null;
};

const numOrNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

const toRecord = (row: TestClockRow): TestClockRecord => ({
  ...row,
  frozen_time: Number(row.frozen_time),
  advance_to: numOrNull(row.advance_to),
  advance_lease_until: numOrNull(row.advance_lease_until),
  created_at: Number(row.created_at),
  deleted_at: numOrNull(row.deleted_at),
});

const clocks = (db: Knex) => db.withSchema(SCHEMA).from('test_clocks');

export interface Owner {
  accountId: string;
  environment: Environment;
}

/** The position after which the next page starts: the last clock shown. */
export interface TestClockPosition {
  created_at: number;
  id: string;
}

/**
 * `update` holds the clock against advances and deletes; `share` only against them, so orders on
 * one clock do not wait for each other.
 */
type Lock = 'update' | 'share';

export async function insertTestClock(db: Knex, record: TestClockRecord): Promise<void> {
  await clocks(db).insert(record);
}

/** The owner's clock, unless deleted; another account's or environment's clock is not found. */
export async function findOwnedTestClock(db: Knex, owner: Owner, id: string, options: { lock?: Lock } = {}): Promise<TestClockRecord | undefined> {
  const query = clocks(db).select('*').where({ id, account_id: owner.accountId, environment: owner.environment }).whereNull('deleted_at').first();
  if (options.lock === 'update') query.forUpdate();
  if (options.lock === 'share') query.forShare();
  const row = (await query) as TestClockRow | undefined;
  return row && toRecord(row);
}

/** The current time of a clock, deleted or not: a deleted clock's eSIMs stay at its last time. */
export async function clockFrozenTime(db: Knex, id: string): Promise<number | undefined> {
  const row = (await clocks(db).select('frozen_time').where({ id }).first()) as { frozen_time: string | number } | undefined;
  return row && Number(row.frozen_time);
}

/** A page of the owner's clocks, newest first then by id, after `after`; deleted ones are left out. */
export async function testClockPage(db: Knex, owner: Owner, after: TestClockPosition | undefined, limit: number): Promise<TestClockRecord[]> {
  const query = clocks(db)
    .select('*')
    .where({ account_id: owner.accountId, environment: owner.environment })
    .whereNull('deleted_at')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  if (after) query.andWhereRaw('(created_at, id) < (?, ?)', [after.created_at, after.id]);
  return ((await query) as TestClockRow[]).map(toRecord);
}

export async function updateTestClockRow(
  db: Knex,
  id: string,
  changes: Partial<Pick<TestClockRecord, 'frozen_time' | 'status' | 'advance_token' | 'advance_to' | 'advance_lease_until' | 'deleted_at'>>,
): Promise<void> {
  await clocks(db).where({ id }).update(changes);
}

/** Ends the advance named by `token`, if it still holds the clock, leaving the time as it was. */
export async function releaseClockAdvance(db: Knex, id: string, token: string): Promise<void> {
  await clocks(db).where({ id, advance_token: token }).update(NO_ADVANCE);
}

/**
 * When a change of an eSIM happens: now, or its clock's time for an eSIM on a test clock (a deleted
 * clock's last time). Read after the eSIM's row lock is taken, without locking the clock: an
 * advance that passes this eSIM's expiry waits for that lock, and one that does not is no conflict.
 */
export async function esimTime(db: Knex, esim: { test_clock: string | null }, now: () => Date): Promise<Date> {
  if (esim.test_clock === null) return now();
  const frozen = await clockFrozenTime(db, esim.test_clock);
  // The clock row is never removed (a delete only marks it), so it is always there.
  return frozen === undefined ? now() : clockInstant(frozen);
}
