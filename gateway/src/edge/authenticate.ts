import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findKeyByHash, markFirstUse, touchKey, type AuthenticatedKeyRow } from '../db/keys-repository.ts';
import { bearerToken, hashSecret } from '../domain/api-key-secret.ts';
import { recordKeyEvent } from '../events/api-key-events.ts';

/**
 * Step 1 of the order of checks. No `Authorization: Bearer <token>` is `key_missing`, a token
 * that is no key `key_invalid`, a revoked key `key_revoked`. Only the SHA-256 of the token is
 * looked up, and the stored hash is compared again in constant time.
 */
export async function authenticate(db: Knex, authorization: string | undefined): Promise<AuthenticatedKeyRow> {
  const token = bearerToken(authorization);
  if (token === undefined) throw new ApiError('key_missing');
  const hash = hashSecret(token);
  const key = await findKeyByHash(db, hash);
  if (!key || !timingSafeEqual(key.secret_hash, hash)) throw new ApiError('key_invalid');
  if (key.status !== 'active') throw new ApiError('key_revoked');
  return key;
}

/**
 * Records that the key was used: `api_key.first_used` on its first authenticated request
 * (exactly once, the conditional update decides among concurrent requests and instances),
 * and a throttled `last_used_at` after that. Returns true when an event was written.
 */
export async function recordKeyUse(db: Knex, key: AuthenticatedKeyRow): Promise<boolean> {
  if (key.first_used_at === null) {
    return db.transaction(async (trx) => {
      const first = await markFirstUse(trx, key.id);
      if (!first) return false;
      await recordKeyEvent(trx, 'api_key.first_used', first);
      return true;
    });
  }
  await touchKey(db, key.id);
  return false;
}
