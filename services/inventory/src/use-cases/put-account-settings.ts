import type { AccountSettings } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { upsertAccount } from '../db/account-repository.ts';
import { toAccountSettings } from '../domain/account.ts';

/** PUT /internal/accounts/{accountId}: the operator sets an account's verification and live balance. */
export async function putAccountSettings(
  knex: Knex,
  accountId: string,
  changes: { verified?: boolean | undefined; live_balance_cents?: number | undefined },
  now = new Date(),
): Promise<AccountSettings> {
  return toAccountSettings(await upsertAccount(knex, accountId, changes, Math.floor(now.getTime() / 1000)));
}
