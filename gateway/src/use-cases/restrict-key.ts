import { ApiError, type ApiKey } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { setKeyScopes } from '../db/keys-repository.ts';
import { toApiKey } from '../domain/api-key.ts';
import { scopesOf } from './issue-key.ts';

/** Sets the scopes of a key. */
export async function restrictKey(db: Knex, keyId: string, scopes: readonly string[]): Promise<ApiKey> {
  const row = await setKeyScopes(db, keyId, scopesOf(scopes));
  if (!row) throw new ApiError('resource_not_found', { param: 'key', message: `No key ${keyId}.` });
  return toApiKey(row);
}
