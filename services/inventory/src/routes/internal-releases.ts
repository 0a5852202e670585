import { internalInventoryReleasesContract } from '@connectivity/contracts';
import { signalWork, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { RELEASES_SIGNAL } from '../db/release-repository.ts';
import { listReleases, retryRelease } from '../orders/supplier-releases.ts';

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
    listSupplierReleases: async ({ query }) => ({ status: 200, body: await listReleases(deps.knex, deps.cursors, query) }),
    retrySupplierRelease: async ({ params }) => {
      const release = await retryRelease(deps.knex, params.releaseId, now().getTime());
      signalWork(RELEASES_SIGNAL);
      return { status: 200, body: release };
    },
  });
}
