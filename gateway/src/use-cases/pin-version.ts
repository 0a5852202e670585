import type { Knex } from 'knex';
import { pinVersion } from '../db/accounts-repository.ts';
import type { KeyCache } from '../db/key-cache.ts';

/**
 * Pins the version an account's first call is served at (the first pin wins, whichever instance
 * wrote it) and updates this instance's cached copies of the account's keys.
 */
export async function pinVersionOnFirstCall(deps: { knex: Knex; keys: KeyCache }, accountId: string, version: string): Promise<void> {
  const pinned = await pinVersion(deps.knex, accountId, version);
  deps.keys.patchAccount(accountId, { pinned_version: pinned });
}
