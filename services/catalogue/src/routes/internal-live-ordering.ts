import { internalCatalogueAccountsContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { readLiveOrdering, switchLiveOrdering } from '../use-cases/switch-live-ordering.ts';

const s = initServer();

/** The operator command line's switch of an account's live ordering (through the gateway's admin API). */
export function internalLiveOrderingRouter(deps: { knex: Knex }) {
  return s.router(internalCatalogueAccountsContract, {
    getLiveOrdering: async ({ params }) => ({ status: 200, body: await readLiveOrdering(deps, params.accountId) }),
    putLiveOrdering: async ({ params, body }) => ({ status: 200, body: await switchLiveOrdering(deps, params.accountId, body.enabled) }),
  });
}
