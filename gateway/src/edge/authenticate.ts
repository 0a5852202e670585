import { timingSafeEqual } from 'node:crypto';
import { ApiError, isApiError } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import { bearerToken, hashSecret, secretEnvironment } from '../domain/api-key-secret.ts';
import type { Identity } from '../domain/identity.ts';
import { addressBucket, applyAddressLimit, refuseIfSpent } from '../use-cases/rate-limit.ts';
import type { EdgeDeps } from './deps.ts';

/**
 * Step 1 of record 0255: the identity of the request's API key, from the key cache. No
 * `Authorization: Bearer <token>` is `key_missing`, a token that is no key `key_invalid`, a
 * revoked key `key_revoked`. A token that cannot be a key (not `sk_test_`/`sk_live_` and its
 * characters) is refused without a lookup; otherwise only the SHA-256 of the token is looked up,
 * and compared again in constant time. A request without a valid key is counted per address,
 * which also throttles anyone guessing keys; a key not in memory from an address whose budget is
 * spent is refused before the lookup.
 */
export async function authenticate(deps: Pick<EdgeDeps, 'edge' | 'rateLimitPerMinute'>, req: Request, res: Response): Promise<Identity> {
  try {
    const token = bearerToken(req.get('authorization'));
    if (token === undefined) throw new ApiError('key_missing');
    if (secretEnvironment(token) === undefined) throw new ApiError('key_invalid');
    const hash = hashSecret(token);
    const found = deps.edge.keys.find(hash, () => refuseIfSpent(deps, res, addressBucket(req, 'anonymous')));
    // A key in memory comes back as it is: steady state awaits nothing here.
    const key = found instanceof Promise ? await found : found;
    if (!key || !timingSafeEqual(key.secretHash, hash)) throw new ApiError('key_invalid');
    if (key.status !== 'active') throw new ApiError('key_revoked');
    return key.identity;
  } catch (error) {
    if (isApiError(error) && error.code === 'rate_limited') throw error;
    await applyAddressLimit(deps, req, res);
    throw error;
  }
}
