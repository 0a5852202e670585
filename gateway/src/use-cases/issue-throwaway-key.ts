import { ApiError, type Environment } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findAccount } from '../db/accounts-repository.ts';
import { issueKeyInTransaction, type IssuedKey } from './issue-key.ts';

/**
 * An extra test key that does not replace the account's own: for a tool that must make
 * `api_key.*` events happen (`pnpm cli trigger`) without breaking the key an integrator uses.
 * Sandbox only; the tool revokes it when done.
 */
export async function issueThrowawayKey(db: Knex, accountId: string, environment: Environment, scopes: readonly string[] | undefined): Promise<IssuedKey> {
  if (environment !== 'test') {
    throw new ApiError('invalid_parameter', { param: 'throwaway', message: 'Throwaway keys are for the test environment only; a live account has one key.' });
  }
  return db.transaction(async (trx) => {
    if (!(await findAccount(trx, accountId))) throw new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });
    return issueKeyInTransaction(trx, accountId, environment, { scopes, throwaway: true });
  });
}
