import { contract } from '@connectivity/contracts';
import { claimOf, getCaller, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { getBalance } from '../use-cases/get-balance.ts';
import { getRefund } from '../use-cases/get-refund.ts';
import { listBalanceTransactions } from '../use-cases/list-balance-transactions.ts';
import { listRefunds } from '../use-cases/list-refunds.ts';
import { setTestBalance } from '../use-cases/set-test-balance.ts';
import { settleTestRefund } from '../use-cases/settle-test-refund.ts';

const s = initServer();

/** The balance, its transactions and refunds, and the sandbox's simulated balance. */
export function balanceRouter(deps: { knex: Knex; cursors: CursorCodec }) {
  return s.router(contract.balance, {
    getBalance: async ({ res }) => ({ status: 200, body: await getBalance(deps.knex, getCaller(res)) }),
    listBalanceTransactions: async ({ query, res }) => ({ status: 200, body: await listBalanceTransactions(deps.knex, deps.cursors, getCaller(res), query) }),
    listRefunds: async ({ query, res }) => ({ status: 200, body: await listRefunds(deps.knex, deps.cursors, getCaller(res), query) }),
    getRefund: async ({ params, res }) => ({ status: 200, body: await getRefund(deps.knex, getCaller(res), params.id) }),
    settleTestRefund: async ({ params, body, res }) => ({
      status: 200,
      body: await settleTestRefund(deps.knex, getCaller(res), params.id, body.status, claimOf(res)),
    }),
    setTestBalance: async ({ body, res }) => ({ status: 200, body: await setTestBalance(deps.knex, getCaller(res), body, claimOf(res)) }),
  });
}
