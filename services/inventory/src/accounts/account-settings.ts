import type { AccountSettings } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { accountRepository, defaultAccount, type AccountRecord } from '../db/account-repository.ts';

const toSettings = (account: AccountRecord): AccountSettings => ({ object: 'account_settings', ...account });

/** The operator's view and setting of an account's live ordering: verification and balance. */
export const accountSettings = {
  async get(knex: Knex, accountId: string, now = new Date()): Promise<AccountSettings> {
    const account = await accountRepository.find(knex, accountId);
    return toSettings(account ?? defaultAccount(accountId, Math.floor(now.getTime() / 1000)));
  },
  async put(knex: Knex, accountId: string, changes: { verified?: boolean | undefined; live_balance_cents?: number | undefined }, now = new Date()): Promise<AccountSettings> {
    return toSettings(await accountRepository.upsert(knex, accountId, changes, Math.floor(now.getTime() / 1000)));
  },
};
