import { randomUUID } from 'node:crypto';
import { ApiError, type TestClock } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim, Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { expireEsim } from '../db/esim-events.ts';
import { lockEsimsDueOnClock } from '../db/esim-repository.ts';
import { expiringOf, lockEsimsExpiringOnClock, notifyExpiring } from '../db/expiring-repository.ts';
import { dueExpiringMark, markInstant } from '../domain/expiring.ts';
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
  /** eSIMs expired per transaction (record 0214). */
  advanceBatch?: number;
}

export const ADVANCE_BATCH = 200;

/**
 * POST /v1/test/clocks/{id}/advance, in two steps so that the clock shows `advancing` meanwhile:
 *
 * 1. A short transaction marks the clock advancing, with a token naming this advance and a lease.
 * 2. Transactions of at most `advanceBatch` eSIMs (record 0214), each under the clock's row lock
 *    and only while the advance is still this one's: they expire the eSIMs of the clock whose
 *    validity the clock passes, earliest first (each with its `esim.expired` in the outbox, as the
 *    sweeper does), and renew the lease. The transaction that finds fewer than a batch due also
 *    moves the clock to its new time, sets it ready and records the answer, so nothing due is left
 *    behind and a retried advance never expires an eSIM twice (an expired eSIM is never due again).
 *
 * Orders on the clock hold it with a share lock while they read its time; one placed between two
 * batches is at the old time and is expired by a later batch when due. If the batches stop (a
 * crash), the eSIMs expired so far stay expired with their events, the lease runs out, the clock
 * reads `ready` at its old time, and the next advance takes it over and expires the rest.
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

  const batch = deps.advanceBatch ?? ADVANCE_BATCH;
  try {
    let expired = 0;
    for (;;) {
      const step = await deps.knex.transaction(async (trx) => {
        const clock = await findOwnedTestClock(trx, caller, id, { lock: 'update' });
        // Deleted meanwhile: the delete stands and the advance goes no further.
        if (!clock) throw testClockNotFound();
        if (clock.advance_token !== token) throw takenOver();
        // The `esim.expiring` notices the clock passes first (record 0236), then the expiries, in one batch.
        const notices = await noticeExpiringEsims(trx, clock, target, batch);
        const count = notices < batch ? notices + (await expireDueEsims(trx, clock, target, batch - notices)) : notices;
        if (count === batch) {
          // More may be due: this batch commits, the advance keeps the clock for the next one.
          await updateTestClockRow(trx, clock.id, { advance_lease_until: now().getTime() + ADVANCE_LEASE_MS });
          return { count, answer: undefined };
        }
        const advanced = { frozen_time: target, ...NO_ADVANCE };
        await updateTestClockRow(trx, clock.id, advanced);
        const answer = toPublicTestClock({ ...clock, ...advanced }, now().getTime());
        await claim.record(trx, 200, answer);
        return { count, answer };
      });
      expired += step.count;
      if (step.answer) {
        deps.logger.info({ testClock: id, frozenTime: target, expired }, 'advanced a test clock');
        return step.answer;
      }
    }
  } catch (error) {
    await giveBack(deps, id, token);
    throw error;
  }
}

/**
 * Up to `limit` eSIMs of the clock that the advance to `target` brings near their end (record 0236): each
 * gets `esim.expiring` for the nearest mark it reaches, dated at that mark (never in the clock's past).
 * Those that expire by `target` get none: `expireDueEsims` ends them.
 */
async function noticeExpiringEsims(trx: Knex.Transaction, clock: TestClockRecord, target: number, limit: number): Promise<number> {
  const rows = await lockEsimsExpiringOnClock(trx, clock.id, target, limit);
  for (const { esim, notified } of rows.map(expiringOf)) {
    const mark = dueExpiringMark(esim, notified, target);
    if (mark === null || esim.expires_at === null) continue;
    await notifyExpiring(trx, esim, mark, clockInstant(Math.max(markInstant(esim.expires_at, mark), clock.frozen_time)));
  }
  return rows.length;
}

/** Up to `limit` eSIMs of the clock that expire by `target`: expired at their own `expires_at`, with their events dated then. */
async function expireDueEsims(trx: Knex.Transaction, clock: TestClockRecord, target: number, limit: number): Promise<number> {
  const due = await lockEsimsDueOnClock(trx, clock.id, target, limit);
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
