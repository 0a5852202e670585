import { internalAccountsContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { getAccountSettings } from '../use-cases/get-account-settings.ts';
import { putAccountSettings } from '../use-cases/put-account-settings.ts';

const s = initServer();

/** The operator command line's routes: an account's verification and live balance. */
export function internalAccountsRouter(knex: Knex) {
  return s.router(internalAccountsContract, {
    getAccountSettings: async ({ params }) => ({ status: 200, body: await getAccountSettings(knex, params.accountId) }),
    putAccountSettings: async ({ params, body }) => ({ status: 200, body: await putAccountSettings(knex, params.accountId, body) }),
  });
}
