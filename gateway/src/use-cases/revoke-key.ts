import { ApiError, type ApiKey } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { recordKeyEvent } from '../db/key-events.ts';
import { findKey, revokeKey } from '../db/keys-repository.ts';
import { toApiKey } from '../domain/api-key.ts';

/** Revokes a key, with its `api_key.revoked` event; revoking a revoked key changes nothing. */
export async function revokeKeyById(db: Knex, keyId: string): Promise<ApiKey> {
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
