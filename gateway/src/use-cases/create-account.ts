import { newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import { insertAccount } from '../db/accounts-repository.ts';
import type { AccountRow } from '../domain/account.ts';
import { issueKeyInTransaction, type IssuedKey } from './issue-key.ts';

export interface CreatedAccount {
  account: AccountRow;
  test: IssuedKey;
  live: IssuedKey;
}

/** An account with its test and live keys, and their `api_key.issued` events, in one transaction. */
export async function createAccount(
  db: Knex,
  options: { name?: string | null; isDev?: boolean; testSecret?: string | undefined; liveSecret?: string | undefined } = {},
): Promise<CreatedAccount> {
  return db.transaction(async (trx) => {
    const account = await insertAccount(trx, { id: newId('account'), name: options.name ?? null, isDev: options.isDev ?? false });
    const test = await issueKeyInTransaction(trx, account.id, 'test', { secret: options.testSecret });
    const live = await issueKeyInTransaction(trx, account.id, 'live', { secret: options.liveSecret });
    return { account, test, live };
  });
}
