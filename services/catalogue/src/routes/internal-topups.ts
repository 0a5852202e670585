import { internalCatalogueTopupsContract } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';
import { listTopupOffers } from '../use-cases/list-topup-offers.ts';
import { findTopup, purchaseTopup } from '../use-cases/live-topups.ts';

const s = initServer();

/** Top-ups as inventory asks for them (records 0240-0248). */
export function internalTopupsRouter(deps: CatalogueDeps) {
  return s.router(internalCatalogueTopupsContract, {
    listTopupOffers: async ({ query, res }) => ({ status: 200, body: { offers: await listTopupOffers(deps, getCaller(res), query) } }),
    purchaseTopup: async ({ body, res }) => {
      const outcome = await purchaseTopup(deps, getCaller(res), body);
      return outcome.outcome === 'bought' ? { status: 200, body: outcome } : { status: 202, body: outcome };
    },
    findTopup: async ({ params, query, res }) => ({
      status: 200,
      body: { found: await findTopup(deps, getCaller(res), { ...query, reference: params.reference }) },
    }),
  });
}
