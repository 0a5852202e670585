import type { Knex } from 'knex';
import type { AccountRow } from '../domain/account.ts';

const ACCOUNTS = 'gateway.accounts';

export async function insertAccount(trx: Knex.Transaction, account: { id: string; name?: string | null; isDev?: boolean }): Promise<AccountRow> {
  await trx.table(ACCOUNTS).insert({ id: account.id, name: account.name ?? null, is_dev: account.isDev ?? false });
  const row = await findAccount(trx, account.id);
  if (!row) throw new Error(`account ${account.id} vanished after insert`);
  return row;
}

export async function findAccount(db: Knex, id: string): Promise<AccountRow | undefined> {
  return await db.table(ACCOUNTS).where({ id }).first<AccountRow | undefined>();
}

export async function findDevAccount(db: Knex): Promise<AccountRow | undefined> {
  return await db.table(ACCOUNTS).where({ is_dev: true }).first<AccountRow | undefined>();
}

/** Pins the version on the account's first call (the first pin wins); resolves with the pinned version. */
export async function pinVersion(db: Knex, accountId: string, version: string): Promise<string> {
  await db.table(ACCOUNTS).where({ id: accountId }).whereNull('pinned_version').update({ pinned_version: version });
  const row = await db.table(ACCOUNTS).where({ id: accountId }).first<{ pinned_version: string | null } | undefined>('pinned_version');
  return row?.pinned_version ?? version;
}

export async function setRateLimit(db: Knex, accountId: string, perMinute: number | null): Promise<boolean> {
  const updated = await db.table(ACCOUNTS).where({ id: accountId }).update({ rate_limit_per_minute: perMinute });
  return updated > 0;
}

/** Locks the account's row until the transaction ends, so two changes of its keys queue instead of racing. */
export async function lockAccount(trx: Knex.Transaction, id: string): Promise<void> {
  await trx.table(ACCOUNTS).where({ id }).forUpdate().first('id');
}
