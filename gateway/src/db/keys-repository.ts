import type { Environment, Scope } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { AuthenticatedKeyRow, KeyRow } from '../domain/api-key.ts';

export type { AuthenticatedKeyRow };

const KEYS = 'gateway.api_keys';
const KEY_COLUMNS = [
  'k.id',
  'k.account_id',
  'k.environment',
  'k.prefix',
  'k.last4',
  'k.status',
  'k.scopes',
  'k.created_at',
  'k.first_used_at',
  'k.last_used_at',
  'k.revoked_at',
];

export async function findKeyByHash(db: Knex, hash: Buffer): Promise<AuthenticatedKeyRow | undefined> {
  const row = await db
    .from({ k: KEYS })
    .join({ a: 'gateway.accounts' }, 'a.id', 'k.account_id')
    .where('k.secret_hash', hash)
    .first<AuthenticatedKeyRow | undefined>([...KEY_COLUMNS, 'k.secret_hash', 'a.pinned_version', 'a.rate_limit_per_minute']);
  return row;
}

export async function findKey(db: Knex, id: string): Promise<KeyRow | undefined> {
  return await db.from({ k: KEYS }).where('k.id', id).first<KeyRow | undefined>(KEY_COLUMNS);
}

/** The account's own active key of an environment (never a throwaway one). */
export async function findActiveKey(db: Knex, accountId: string, environment: Environment): Promise<KeyRow | undefined> {
  return await db
    .from({ k: KEYS })
    .where({ 'k.account_id': accountId, 'k.environment': environment, 'k.status': 'active', 'k.throwaway': false })
    .first<KeyRow | undefined>(KEY_COLUMNS);
}

/** An account's keys of one environment in creation order, from just after `afterId`, one page. */
export async function listKeys(
  db: Knex,
  accountId: string,
  environment: Environment,
  page: { afterId?: string | undefined; limit: number },
): Promise<KeyRow[]> {
  const query = db.from({ k: KEYS }).where({ 'k.account_id': accountId, 'k.environment': environment }).orderBy('k.id', 'asc').limit(page.limit);
  // Key ids are ULIDs: ordering by id is ordering by creation time, and a unique tie-breaker.
  if (page.afterId) void query.andWhere('k.id', '>', page.afterId);
  return await query.select<KeyRow[]>(KEY_COLUMNS);
}

export interface NewKey {
  id: string;
  accountId: string;
  environment: Environment;
  secretHash: Buffer;
  prefix: string;
  last4: string;
  scopes: Scope[];
  /** An extra test key beside the account's own (see `issueThrowawayKey`). */
  throwaway?: boolean;
}

export async function insertKey(trx: Knex.Transaction, key: NewKey): Promise<KeyRow> {
  await trx.table(KEYS).insert({
    id: key.id,
    account_id: key.accountId,
    environment: key.environment,
    secret_hash: key.secretHash,
    prefix: key.prefix,
    last4: key.last4,
    scopes: key.scopes,
    throwaway: key.throwaway ?? false,
  });
  const row = await findKey(trx, key.id);
  if (!row) throw new Error(`key ${key.id} vanished after insert`);
  return row;
}

/** Revokes an active key; undefined when it was not active (already revoked or unknown). */
export async function revokeKey(trx: Knex.Transaction, id: string): Promise<KeyRow | undefined> {
  const updated = await trx.table(KEYS).where({ id, status: 'active' }).update({ status: 'revoked', revoked_at: trx.fn.now() }, ['id']);
  if (updated.length === 0) return undefined;
  return findKey(trx, id);
}

export async function setKeyScopes(db: Knex, id: string, scopes: Scope[]): Promise<KeyRow | undefined> {
  const updated = await db.table(KEYS).where({ id }).update({ scopes }, ['id']);
  if (updated.length === 0) return undefined;
  return findKey(db, id);
}

/**
 * Marks the key's first use. The conditional update is atomic, so among any number of
 * concurrent requests, on any number of gateway instances, exactly one gets the row back.
 */
export async function markFirstUse(trx: Knex.Transaction, id: string): Promise<KeyRow | undefined> {
  const rows: { id: string }[] = await trx
    .table(KEYS)
    .where({ id })
    .whereNull('first_used_at')
    .update({ first_used_at: trx.fn.now(), last_used_at: trx.fn.now() }, ['id']);
  if (rows.length === 0) return undefined;
  return findKey(trx, id);
}

/** Refreshes `last_used_at` of these keys, each at most once a minute, in one statement. */
export async function touchKeys(db: Knex, ids: readonly string[]): Promise<void> {
  await db
    .table(KEYS)
    .whereIn('id', ids)
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '60 seconds'")))
    .update({ last_used_at: db.fn.now() });
}
