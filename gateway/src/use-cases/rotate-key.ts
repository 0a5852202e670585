import { ApiError, type ApiKey, type Environment } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findAccount, lockAccount } from '../db/accounts-repository.ts';
import { recordKeyEvent } from '../db/key-events.ts';
import { findActiveKey, revokeKey } from '../db/keys-repository.ts';
import { toApiKey, type KeyRow } from '../domain/api-key.ts';
import { issueKeyInTransaction, type IssuedKey } from './issue-key.ts';

/**
 * Issues the account's key for an environment, revoking the active one first (a rotation), with
 * their events. One transaction: a client never sees two active keys, nor none, for one
 * environment. The new key keeps the old one's scopes unless others are given.
 */
export async function rotateKey(
  db: Knex,
  accountId: string,
  environment: Environment,
  options: { scopes?: readonly string[] | undefined; secret?: string | undefined } = {},
): Promise<IssuedKey & { revoked: ApiKey | null }> {
  return db.transaction(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });
    // Two rotations of one account queue instead of racing.
    await lockAccount(trx, accountId);
    const current = await findActiveKey(trx, accountId, environment);
    let revoked: KeyRow | undefined;
    if (current) {
      revoked = await revokeKey(trx, current.id);
      if (revoked) await recordKeyEvent(trx, 'api_key.revoked', revoked);
    }
    const issued = await issueKeyInTransaction(trx, accountId, environment, {
      scopes: options.scopes ?? (current ? current.scopes : undefined),
      secret: options.secret,
    });
    return { ...issued, revoked: revoked ? toApiKey(revoked) : null };
  });
}
