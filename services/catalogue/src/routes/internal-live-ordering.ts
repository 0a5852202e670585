import { internalCatalogueAccountsContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { LiveOrderingRepository } from '../db/live-ordering-repository.ts';

const s = initServer();

/** The operator command line's switch of an account's live ordering (through the gateway's admin API). */
export function internalLiveOrderingRouter(liveOrdering: LiveOrderingRepository) {
  return s.router(internalCatalogueAccountsContract, {
    getLiveOrdering: async ({ params }) => ({ status: 200, body: await liveOrdering.get(params.accountId) }),
    putLiveOrdering: async ({ params, body }) => ({ status: 200, body: await liveOrdering.put(params.accountId, body.enabled) }),
  });
}
