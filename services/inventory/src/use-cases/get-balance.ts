import type { Balance } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findBalance } from '../db/ledger-repository.ts';
import { toPublicBalance } from '../domain/balance.ts';

/** GET /v1/balance: the balance of the key's environment (record 0156). */
export async function getBalance(knex: Knex, caller: Caller): Promise<Balance> {
  return toPublicBalance(caller.environment, await findBalance(knex, caller.accountId, caller.environment));
}
