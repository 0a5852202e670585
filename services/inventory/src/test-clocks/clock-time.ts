import type { Knex } from 'knex';
import { testClockRepository } from '../db/test-clock-repository.ts';
import type { Caller } from '../domain/access.ts';
import { assertSandboxCaller, clockInstant, testClockNotFound } from '../domain/test-clock.ts';

/**
 * The time an order on a test clock is placed at: the clock's, read under a share lock held to
 * the end of the order's transaction. An advance takes the clock's row lock, so it waits for the
 * order to commit and then sees (and expires, when due) its eSIMs; an order never lands behind it.
 */
export async function orderTimeOnClock(trx: Knex.Transaction, caller: Caller, clockId: string): Promise<number> {
  const clock = await testClockRepository.findOwned(trx, caller, clockId, { lock: 'share' });
  if (!clock) throw testClockNotFound('test_clock');
  return clock.frozen_time;
}

/** Checks `test_clock` of an order before anything is bought: a sandbox caller's own clock, not deleted. */
export async function assertOrderableClock(knex: Knex, caller: Caller, clockId: string): Promise<void> {
  assertSandboxCaller(caller.environment, 'test_clock');
  if (!(await testClockRepository.findOwned(knex, caller, clockId))) throw testClockNotFound('test_clock');
}

/**
 * When a change of an eSIM happens: now, or its clock's time for an eSIM on a test clock (a deleted
 * clock's last time). Read after the eSIM's row lock is taken, without locking the clock: an
 * advance that passes this eSIM's expiry waits for that lock, and one that does not is no conflict.
 */
export async function esimTime(db: Knex, esim: { test_clock: string | null }, now: () => Date): Promise<Date> {
  if (esim.test_clock === null) return now();
  const frozen = await testClockRepository.frozenTime(db, esim.test_clock);
  // The clock row is never removed (a delete only marks it), so it is always there.
  return frozen === undefined ? now() : clockInstant(frozen);
}
