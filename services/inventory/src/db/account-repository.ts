import type { Knex } from 'knex';
import { defaultAccount, type AccountRecord } from '../domain/account.ts';
import { SCHEMA } from './schema.ts';

interface AccountRow {
  account_id: string;
  verified: boolean;
  live_balance_cents: string | number;
  updated_at: string | number;
}

const toRecord = (row: AccountRow): AccountRecord => ({
  account_id: row.account_id,
  verified: row.verified,
  live_balance_cents: Number(row.live_balance_cents),
  updated_at: Number(row.updated_at),
});

const accounts = (db: Knex) => db.withSchema(SCHEMA).from('accounts');

export async function findAccount(db: Knex, accountId: string, options: { lock?: boolean } = {}): Promise<AccountRecord | undefined> {
  const query = accounts(db).select('account_id', 'verified', 'live_balance_cents', 'updated_at').where('account_id', accountId).first();
  if (options.lock) query.forUpdate();
  const row = (await query) as AccountRow | undefined;
  return row && toRecord(row);
}

/** Sets the given fields, creating the account's row on first use. */
export async function upsertAccount(
  db: Knex,
  accountId: string,
  changes: { verified?: boolean | undefined; live_balance_cents?: number | undefined },
  now: number,
): Promise<AccountRecord> {
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const [row] = await accounts(db)
    .insert({ ...defaultAccount(accountId, now), ...set, created_at: now, updated_at: now })
    .onConflict('account_id')
    .merge({ ...set, updated_at: now })
    .returning<AccountRow[]>(['account_id', 'verified', 'live_balance_cents', 'updated_at']);
  if (!row) throw new Error('upsert returned no row');
  return toRecord(row);
}

/** Takes `amount` from the balance; the caller holds the row lock and has checked the balance. */
export async function debitAccount(db: Knex, accountId: string, amount: number, now: number): Promise<void> {
  await accounts(db)
    .where('account_id', accountId)
    .update({ live_balance_cents: db.raw('live_balance_cents - ?', [amount]), updated_at: now });
}
