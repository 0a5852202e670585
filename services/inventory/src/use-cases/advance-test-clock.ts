import { randomUUID } from 'node:crypto';
import { ApiError, type TestClock } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim, Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { expireEsim } from '../db/esim-events.ts';
import { lockEsimsDueOnClock } from '../db/esim-repository.ts';
import { findOwnedTestClock, releaseClockAdvance, updateTestClockRow } from '../db/test-clock-repository.ts';
import {
  ADVANCE_LEASE_MS,
  assertCanAdvance,
  assertSandboxCaller,
  clockInstant,
  expiryTimeOnClock,
  NO_ADVANCE,
  testClockNotFound,
  toPublicTestClock,
  type TestClockRecord,
} from '../domain/test-clock.ts';
import type { TestClockDeps } from './create-test-clock.ts';

export interface AdvanceTestClockDeps extends TestClockDeps {
  logger: Logger;
}

/**
 * POST /v1/test/clocks/{id}/advance, in two steps so that the clock shows `advancing` meanwhile:
 *
 * 1. A short transaction marks the clock advancing, with a token naming this advance and a lease.
 * 2. ONE transaction, under the clock's row lock, expires every eSIM of the clock whose validity
 *    the clock passes (each with its `esim.expired` in the outbox, as the sweeper does), moves the
 *    clock to its new time, sets it ready and records the answer. So the expiries, their events
 *    and the new time commit together, and a retried advance never expires an eSIM twice.
 *
 * Orders on the clock hold it with a share lock while they read its time, so none can slip an eSIM
 * in behind the advance. If step 2 never commits (a crash), nothing of the advance happened: the
 * lease runs out, the clock reads `ready` at its old time, and the next advance takes it over.
 */
export async function advanceTestClock(deps: AdvanceTestClockDeps, caller: Caller, id: string, target: number, claim: IdempotencyClaim): Promise<TestClock> {
  assertSandboxCaller(caller.environment);
  const now = deps.now ?? (() => new Date());
  const token = randomUUID();

  await deps.knex.transaction(async (trx) => {
    const clock = await findOwnedTestClock(trx, caller, id, { lock: 'update' });
    if (!clock) throw testClockNotFound();
    const nowMs = now().getTime();
    assertCanAdvance(clock, target, nowMs);
    await updateTestClockRow(trx, clock.id, {
      status: 'advancing',
      advance_token: token,
      advance_to: target,
      advance_lease_until: nowMs + ADVANCE_LEASE_MS,
    });
  });

  try {
    const { answer, expired } = await deps.knex.transaction(async (trx) => {
      const clock = await findOwnedTestClock(trx, caller, id, { lock: 'update' });
      // Deleted meanwhile: the delete stands and the advance commits nothing.
      if (!clock) throw testClockNotFound();
      if (clock.advance_token !== token) throw takenOver();
      const expired = await expireDueEsims(trx, clock, target);
      const advanced = { frozen_time: target, ...NO_ADVANCE };
      await updateTestClockRow(trx, clock.id, advanced);
      const answer = toPublicTestClock({ ...clock, ...advanced }, now().getTime());
      await claim.record(trx, 200, answer);
      return { answer, expired };
    });
    deps.logger.info({ testClock: id, frozenTime: target, expired }, 'advanced a test clock');
    return answer;
  } catch (error) {
    await giveBack(deps, id, token);
    throw error;
  }
}

/** Every eSIM of the clock that expires by `target`: expired at its own `expires_at`, with its event dated then. */
async function expireDueEsims(trx: Knex.Transaction, clock: TestClockRecord, target: number): Promise<number> {
  const due = await lockEsimsDueOnClock(trx, clock.id, target);
  for (const esim of due) await expireEsim(trx, esim, 'validity_ended', clockInstant(expiryTimeOnClock(esim.expires_at ?? target, clock.frozen_time)));
  return due.length;
}

/**
 * A failed advance sets the clock ready again at once, rather than showing `advancing` until its
 * lease runs out; only if it is still this advance's (a later one may have taken over).
 */
async function giveBack(deps: AdvanceTestClockDeps, id: string, token: string): Promise<void> {
  try {
    await releaseClockAdvance(deps.knex, id, token);
  } catch (error) {
    // The lease still ends the advance; the failure the caller gets matters more.
    deps.logger.warn({ err: error, testClock: id }, 'setting a test clock ready after a failed advance failed');
  }
}

const takenOver = (): ApiError =>
  new ApiError('invalid_state_transition', {
    message: 'This advance ran past its lease and another advance took the clock over; read the clock and advance again if needed.',
  });
