import type { Knex } from 'knex';
import { defaultAccount, type AccountRecord } from '../domain/account.ts';
import { SCHEMA } from './schema.ts';

interface AccountRow {
  account_id: string;
  verified: boolean;
  updated_at: string | number;
}

const toRecord = (row: AccountRow): AccountRecord => ({ account_id: row.account_id, verified: row.verified, updated_at: Number(row.updated_at) });

const accounts = (db: Knex) => db.withSchema(SCHEMA).from('accounts');

export async function findAccount(db: Knex, accountId: string): Promise<AccountRecord | undefined> {
  const row = (await accounts(db).select('account_id', 'verified', 'updated_at').where('account_id', accountId).first()) as AccountRow | undefined;
  return row && toRecord(row);
}

/** Sets whether the account is verified, creating its row on first use. */
export async function upsertAccount(db: Knex, accountId: string, changes: { verified?: boolean | undefined }, now: number): Promise<AccountRecord> {
  const set = changes.verified === undefined ? {} : { verified: changes.verified };
  const [row] = await accounts(db)
    .insert({ ...defaultAccount(accountId, now), ...set, created_at: now })
    .onConflict('account_id')
    .merge({ ...set, updated_at: now })
    .returning<AccountRow[]>(['account_id', 'verified', 'updated_at']);
  if (!row) throw new Error('upsert returned no row');
  return toRecord(row);
}
