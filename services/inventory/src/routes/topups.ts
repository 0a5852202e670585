import { contract } from '@connectivity/contracts';
import { claimOf, getCaller, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { createTopup, type CreateTopupDeps } from '../use-cases/create-topup.ts';
import { listEsimBundles } from '../use-cases/list-esim-bundles.ts';
import { listTopupOffers } from '../use-cases/list-topup-offers.ts';

const s = initServer();

export type TopupRoutesDeps = CreateTopupDeps & { cursors: CursorCodec };

/** The top-up routes of an eSIM: its offers, a top-up, the bundles on it (records 0240-0243). */
export function topupRouter(deps: TopupRoutesDeps) {
  return s.router(contract.topups, {
    listEsimTopupOffers: async ({ params, query, res }) => ({ status: 200, body: await listTopupOffers(deps, getCaller(res), params.id, query) }),
    createEsimTopup: async ({ params, body, res }) => ({ status: 201, body: await createTopup(deps, getCaller(res), params.id, body, claimOf(res)) }),
    listEsimBundles: async ({ params, query, res }) => ({ status: 200, body: await listEsimBundles(deps, getCaller(res), params.id, query) }),
  });
}
