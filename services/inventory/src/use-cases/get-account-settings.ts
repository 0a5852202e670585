import type { AccountSettings } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findAccount } from '../db/account-repository.ts';
import { findBalance } from '../db/ledger-repository.ts';
import { defaultAccount, toAccountSettings } from '../domain/account.ts';

/** GET /internal/accounts/{accountId}: the operator's view of an account's live ordering (defaults for one never set). */
export async function getAccountSettings(knex: Knex, accountId: string, now = new Date()): Promise<AccountSettings> {
  const account = await findAccount(knex, accountId);
  return toAccountSettings(account ?? defaultAccount(accountId, Math.floor(now.getTime() / 1000)), await findBalance(knex, accountId, 'live'));
}
