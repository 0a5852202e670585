import { ApiError, type AccountView } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findAccount } from '../db/accounts-repository.ts';
import { listKeys } from '../db/keys-repository.ts';
import { presentAccount } from '../domain/account.ts';

export const noSuchAccount = (accountId: string) => new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });

// An account has one active key per environment and a handful of revoked ones: one page holds them.
const KEYS_SHOWN = 1000;

/** An account and every key of it, test then live (never a secret). */
export async function viewAccount(knex: Knex, accountId: string): Promise<AccountView> {
  const account = await findAccount(knex, accountId);
  if (!account) throw noSuchAccount(accountId);
  const keys = [...(await listKeys(knex, accountId, 'test', { limit: KEYS_SHOWN })), ...(await listKeys(knex, accountId, 'live', { limit: KEYS_SHOWN }))];
  return presentAccount(account, keys);
}
