import { ApiError, type Environment, type Scope } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findAccount, insertAccount, type AccountRow } from '../db/accounts-repository.ts';
import { findActiveKey, findKey, insertKey, revokeKey, setKeyScopes, toApiKey, type KeyRow } from '../db/keys-repository.ts';
import { generateSecret, hashSecret, secretEnvironment, secretHints } from '../domain/api-key-secret.ts';
import { normaliseScopes } from '../domain/scopes.ts';
import { recordKeyEvent } from '../db/key-events.ts';

/**
 * The operator's key management, shared by the admin API and the embedded dev account. Every
 * change and its `api_key.*` event are written in one transaction.
 */

export interface IssuedKey {
  key: ReturnType<typeof toApiKey>;
  /** Shown once, here; only its hash is stored. */
  secret: string;
}

export interface CreatedAccount {
  account: AccountRow;
  test: IssuedKey;
  live: IssuedKey;
}

async function issueInTrx(
  trx: Knex.Transaction,
  accountId: string,
  environment: Environment,
  options: { scopes?: readonly string[] | undefined; secret?: string | undefined },
): Promise<IssuedKey> {
  const secret = options.secret ?? generateSecret(environment);
  if (secretEnvironment(secret) !== environment) {
    throw new ApiError('invalid_parameter', { param: 'secret', message: `A ${environment} key must look like sk_${environment}_ followed by 24 to 128 letters and digits.` });
  }
  let scopes: Scope[];
  try {
    scopes = normaliseScopes(options.scopes);
  } catch (error) {
    throw new ApiError('invalid_parameter', { param: 'scopes', message: (error as Error).message });
  }
  const row = await insertKey(trx, {
    id: newId('apiKey'),
    accountId,
    environment,
    secretHash: hashSecret(secret),
    ...secretHints(secret),
    scopes,
  });
  await recordKeyEvent(trx, 'api_key.issued', row);
  return { key: toApiKey(row), secret };
}

export async function createAccount(
  db: Knex,
  options: { name?: string | null; isDev?: boolean; testSecret?: string; liveSecret?: string } = {},
): Promise<CreatedAccount> {
  return db.transaction(async (trx) => {
    const account = await insertAccount(trx, { id: newId('account'), name: options.name ?? null, isDev: options.isDev ?? false });
    const test = await issueInTrx(trx, account.id, 'test', { secret: options.testSecret });
    const live = await issueInTrx(trx, account.id, 'live', { secret: options.liveSecret });
    return { account, test, live };
  });
}

/**
 * Issues the account's key for an environment, revoking the active one first (a rotation).
 * One transaction: a client never sees two active keys, nor none, for one environment.
 */
export async function rotateKey(
  db: Knex,
  accountId: string,
  environment: Environment,
  options: { scopes?: readonly string[] | undefined; secret?: string | undefined } = {},
): Promise<IssuedKey & { revoked: ReturnType<typeof toApiKey> | null }> {
  return db.transaction(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });
    // Lock the account row so two rotations of one account queue instead of racing.
    await trx.table('gateway.accounts').where({ id: accountId }).forUpdate().first('id');
    const current = await findActiveKey(trx, accountId, environment);
    let revoked: KeyRow | undefined;
    if (current) {
      revoked = await revokeKey(trx, current.id);
      if (revoked) await recordKeyEvent(trx, 'api_key.revoked', revoked);
    }
    const issued = await issueInTrx(trx, accountId, environment, {
      scopes: options.scopes ?? (current ? current.scopes : undefined),
      secret: options.secret,
    });
    return { ...issued, revoked: revoked ? toApiKey(revoked) : null };
  });
}

export async function revokeKeyById(db: Knex, keyId: string): Promise<ReturnType<typeof toApiKey>> {
  return db.transaction(async (trx) => {
    const existing = await findKey(trx, keyId);
    if (!existing) throw new ApiError('resource_not_found', { param: 'key', message: `No key ${keyId}.` });
    if (existing.status === 'revoked') return toApiKey(existing);
    const revoked = await revokeKey(trx, keyId);
    if (!revoked) return toApiKey((await findKey(trx, keyId)) ?? existing);
    await recordKeyEvent(trx, 'api_key.revoked', revoked);
    return toApiKey(revoked);
  });
}

export async function restrictKey(db: Knex, keyId: string, scopes: readonly string[]): Promise<ReturnType<typeof toApiKey>> {
  let normalised: Scope[];
  try {
    normalised = normaliseScopes(scopes);
  } catch (error) {
    throw new ApiError('invalid_parameter', { param: 'scopes', message: (error as Error).message });
  }
  const row = await setKeyScopes(db, keyId, normalised);
  if (!row) throw new ApiError('resource_not_found', { param: 'key', message: `No key ${keyId}.` });
  return toApiKey(row);
}
