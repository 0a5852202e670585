import { internalContract } from '@connectivity/contracts';
import { getIdentity } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Catalogue } from '../catalogue.ts';

const s = initServer();

/** GET /internal/bundles/:name: what inventory needs to take an order in the caller's environment. */
export function internalBundlesRouter(catalogue: Catalogue) {
  return s.router(internalContract.catalogue, {
    getBundle: async ({ params, res }) => {
      return { status: 200, body: await catalogue.find(getIdentity(res), params.name) };
    },
  });
}
