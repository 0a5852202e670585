import { ApiError, type ApiKey, type Environment, type Scope } from '@connectivity/contracts';
import { errorMessage, newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import { recordKeyEvent } from '../db/key-events.ts';
import { insertKey } from '../db/keys-repository.ts';
import { generateSecret, hashSecret, secretEnvironment, secretHints } from '../domain/api-key-secret.ts';
import { toApiKey } from '../domain/api-key.ts';
import { normaliseScopes } from '../domain/scopes.ts';

/** A key just issued, with its secret. */
export interface IssuedKey {
  key: ApiKey;
  /** Shown once, here; only its hash is stored. */
  secret: string;
}

/** Scopes as the operator gave them, in catalogue order; an unknown one is `invalid_parameter`. */
export function scopesOf(requested: readonly string[] | undefined): Scope[] {
  try {
    return normaliseScopes(requested);
  } catch (error) {
    throw new ApiError('invalid_parameter', { param: 'scopes', message: errorMessage(error) });
  }
}

/**
 * Issues a key of the account in the caller's transaction, with its `api_key.issued` event: the
 * given secret (the embedded dev account's) or a new one.
 */
export async function issueKeyInTransaction(
  trx: Knex.Transaction,
  accountId: string,
  environment: Environment,
  options: { scopes?: readonly string[] | undefined; secret?: string | undefined; throwaway?: boolean },
): Promise<IssuedKey> {
  const secret = options.secret ?? generateSecret(environment);
  if (secretEnvironment(secret) !== environment) {
    throw new ApiError('invalid_parameter', {
      param: 'secret',
      message: `A ${environment} key must look like sk_${environment}_ followed by 24 to 128 letters and digits.`,
    });
  }
  const scopes = scopesOf(options.scopes);
  const row = await insertKey(trx, {
    id: newId('apiKey'),
    accountId,
    environment,
    secretHash: hashSecret(secret),
    ...secretHints(secret),
    scopes,
    throwaway: options.throwaway ?? false,
  });
  await recordKeyEvent(trx, 'api_key.issued', row);
  return { key: toApiKey(row), secret };
}
