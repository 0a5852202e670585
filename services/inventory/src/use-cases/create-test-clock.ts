import type { TestClock } from '@connectivity/contracts';
import { newId, type Caller, type IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import { insertTestClock } from '../db/test-clock-repository.ts';
import { lockedTestClockCount } from '../db/test-quotas.ts';
import { assertSandboxCaller, toPublicTestClock, type TestClockRecord } from '../domain/test-clock.ts';
import { testClockQuotaExceeded } from '../domain/test-quotas.ts';

export interface TestClockDeps {
  knex: Knex;
  now?: () => Date;
  /** Test clocks (not deleted) an account may have (record 0212); unlimited when not given. */
  maxClocks?: number;
}

/**
 * POST /v1/test/clocks: a clock frozen at `frozen_time` (default now); the answer commits with it.
 * Past the account's quota of clocks, 403 `quota_exceeded` and nothing is made.
 */
export async function createTestClock(
  deps: TestClockDeps,
  caller: Caller,
  input: { frozen_time?: number | undefined; name?: string | undefined },
  claim: IdempotencyClaim,
): Promise<TestClock> {
  assertSandboxCaller(caller.environment);
  const nowMs = (deps.now ?? (() => new Date()))().getTime();
  const seconds = Math.floor(nowMs / 1000);
  const clock: TestClockRecord = {
    id: newId('testClock', nowMs),
    account_id: caller.accountId,
    environment: caller.environment,
    name: input.name ?? null,
    frozen_time: input.frozen_time ?? seconds,
    status: 'ready',
    advance_token: null,
    advance_to: null,
    advance_lease_until: null,
    created_at: seconds,
    deleted_at: null,
  };
  return claim.answerInTransaction(deps.knex, 201, async (trx) => {
    if (deps.maxClocks !== undefined && (await lockedTestClockCount(trx, caller.accountId)) >= deps.maxClocks) throw testClockQuotaExceeded(deps.maxClocks);
    await insertTestClock(trx, clock);
    return toPublicTestClock(clock, nowMs);
  });
}
