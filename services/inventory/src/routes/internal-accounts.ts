import { internalAccountsContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { accountSettings } from '../accounts/account-settings.ts';

const s = initServer();

/** The operator command line's routes: an account's verification and live balance. */
export function internalAccountsRouter(knex: Knex) {
  return s.router(internalAccountsContract, {
    getAccountSettings: async ({ params }) => ({ status: 200, body: await accountSettings.get(knex, params.accountId) }),
    putAccountSettings: async ({ params, body }) => ({ status: 200, body: await accountSettings.put(knex, params.accountId, body) }),
  });
}
