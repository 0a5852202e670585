import type { DeletedTestClock } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import { findOwnedTestClock, updateTestClockRow } from '../db/test-clock-repository.ts';
import { assertSandboxCaller, NO_ADVANCE, testClockNotFound } from '../domain/test-clock.ts';
import type { TestClockDeps } from './create-test-clock.ts';

/**
 * DELETE /v1/test/clocks/{id}. The row stays, marked deleted: the clock's eSIMs keep their
 * `test_clock` and stay at its last time for good (never expired by time, their changes dated
 * then). An advance under way loses: it finds the clock deleted and commits nothing.
 */
export async function deleteTestClock(deps: TestClockDeps, caller: Caller, id: string, claim: IdempotencyClaim): Promise<DeletedTestClock> {
  assertSandboxCaller(caller.environment);
  const seconds = Math.floor((deps.now ?? (() => new Date()))().getTime() / 1000);
  return claim.answerInTransaction(deps.knex, 200, async (trx) => {
    const clock = await findOwnedTestClock(trx, caller, id, { lock: 'update' });
    if (!clock) throw testClockNotFound();
    await updateTestClockRow(trx, clock.id, { deleted_at: seconds, ...NO_ADVANCE });
    return { object: 'test_clock', id: clock.id, deleted: true };
  });
}
