import { internalAccountsContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { creditAccount } from '../use-cases/credit-account.ts';
import { getAccountSettings } from '../use-cases/get-account-settings.ts';
import { putAccountSettings } from '../use-cases/put-account-settings.ts';
import { settleRefund } from '../use-cases/settle-refund.ts';

const s = initServer();

/** The operator command line's routes: an account's verification and live balance, credits, and refund decisions. */
export function internalAccountsRouter(knex: Knex) {
  return s.router(internalAccountsContract, {
    getAccountSettings: async ({ params }) => ({ status: 200, body: await getAccountSettings(knex, params.accountId) }),
    putAccountSettings: async ({ params, body }) => ({ status: 200, body: await putAccountSettings(knex, params.accountId, body) }),
    creditAccount: async ({ params, body }) => ({ status: 200, body: await creditAccount(knex, params.accountId, body) }),
    settleRefund: async ({ params, body }) => ({ status: 200, body: await settleRefund(knex, params.refundId, body.status) }),
  });
}
