import type { Balance } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import { configureBalance, lockBalance, postMovement } from '../db/ledger-repository.ts';
import { toPublicBalance } from '../domain/balance.ts';
import { assertSandboxCaller } from '../domain/test-clock.ts';

/**
 * POST /v1/test/balance: sets the simulated balance sandbox orders are paid from (an `adjustment` of
 * the difference), and its low-balance threshold; `available_cents: null` switches it off, so sandbox
 * orders are free again (record 0157). The answer commits with the change.
 */
export async function setTestBalance(
  knex: Knex,
  caller: Caller,
  input: { available_cents: number | null; low_balance_threshold_cents?: number | null | undefined },
  claim: IdempotencyClaim,
  now = new Date(),
): Promise<Balance> {
  assertSandboxCaller(caller.environment);
  return claim.answerInTransaction(knex, 200, async (trx) => {
    const seconds = Math.floor(now.getTime() / 1000);
    let balance = await lockBalance(trx, caller.accountId, 'test', { create: true, now: seconds });
    if (!balance) throw new Error('a simulated balance could not be made');
    const target = input.available_cents;
    if (target !== null && target !== balance.available_cents) {
      const description = 'Set with POST /v1/test/balance';
      balance = (await postMovement(trx, balance, { type: 'adjustment', amount_cents: target - balance.available_cents, source: null, description }, now))
        .balance;
    }
    balance = await configureBalance(trx, balance, { enforced: target !== null, low_threshold_cents: input.low_balance_threshold_cents }, now);
    return toPublicBalance('test', balance);
  });
}
