import type { TestClock } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findOwnedTestClock } from '../db/test-clock-repository.ts';
import { assertSandboxCaller, testClockNotFound, toPublicTestClock } from '../domain/test-clock.ts';

/** GET /v1/test/clocks/{id}: the caller's clock; another account's, or a deleted one, is not found. */
export async function getTestClock(knex: Knex, caller: Caller, id: string, now = new Date()): Promise<TestClock> {
  assertSandboxCaller(caller.environment);
  const clock = await findOwnedTestClock(knex, caller, id);
  if (!clock) throw testClockNotFound();
  return toPublicTestClock(clock, now.getTime());
}
