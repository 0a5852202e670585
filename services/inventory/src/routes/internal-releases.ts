import { internalInventoryReleasesContract } from '@connectivity/contracts';
import type { CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { listSupplierReleases } from '../use-cases/list-supplier-releases.ts';
import { retrySupplierRelease } from '../use-cases/retry-supplier-release.ts';

const s = initServer();

export interface InternalReleasesDeps {
  knex: Knex;
  cursors: CursorCodec;
  now?: () => Date;
}

/** The operator command line's routes over supplier releases: list them, retry one. */
export function internalReleasesRouter(deps: InternalReleasesDeps) {
  const now = deps.now ?? (() => new Date());
  return s.router(internalInventoryReleasesContract, {
    listSupplierReleases: async ({ query }) => ({ status: 200, body: await listSupplierReleases(deps.knex, deps.cursors, query) }),
    retrySupplierRelease: async ({ params }) => ({ status: 200, body: await retrySupplierRelease(deps.knex, params.releaseId, now().getTime()) }),
  });
}
