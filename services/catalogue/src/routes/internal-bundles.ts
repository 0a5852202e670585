import { internalContract } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { findBundle } from '../use-cases/find-bundle.ts';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';

const s = initServer();

/** GET /internal/bundles/:name: what inventory needs to take an order in the caller's environment. */
export function internalBundlesRouter(deps: CatalogueDeps) {
  return s.router(internalContract.catalogue, {
    getBundle: async ({ params, res }) => ({ status: 200, body: await findBundle(deps, getCaller(res), params.name) }),
  });
}
