import type { AccountSettings } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { upsertAccount } from '../db/account-repository.ts';
import { configureBalance, lockBalance, postMovement } from '../db/ledger-repository.ts';
import { toAccountSettings } from '../domain/account.ts';

/**
 * PUT /internal/accounts/{accountId}: the operator sets an account's verification, its available
 * live balance (the difference recorded as an `adjustment`, record 0156) and its low-balance threshold.
 */
export async function putAccountSettings(
  knex: Knex,
  accountId: string,
  changes: { verified?: boolean | undefined; live_balance_cents?: number | undefined; low_balance_threshold_cents?: number | null | undefined },
  now = new Date(),
): Promise<AccountSettings> {
  const seconds = Math.floor(now.getTime() / 1000);
  return knex.transaction(async (trx) => {
    const account = await upsertAccount(trx, accountId, { verified: changes.verified }, seconds);
    let balance = await lockBalance(trx, accountId, 'live', { create: true, now: seconds });
    if (!balance) throw new Error('a live balance could not be made');
    const target = changes.live_balance_cents;
    if (target !== undefined && target !== balance.available_cents) {
      const movement = {
        type: 'adjustment' as const,
        amount_cents: target - balance.available_cents,
        source: null,
        description: 'Balance set by the operator',
      };
      balance = (await postMovement(trx, balance, movement, now)).balance;
    }
    if (changes.low_balance_threshold_cents !== undefined) {
      balance = await configureBalance(trx, balance, { low_threshold_cents: changes.low_balance_threshold_cents }, now);
    }
    return toAccountSettings(account, balance);
  });
}
