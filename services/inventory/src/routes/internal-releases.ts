import { internalInventoryReleasesContract } from '@connectivity/contracts';
import type { CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { listReleases, retryRelease } from '../orders/supplier-releases.ts';

const s = initServer();

export interface InternalReleasesDeps {
  knex: Knex;
  cursors: CursorCodec;
  /** Wakes the release worker after a retry. */
  onReleaseRecorded?: (() => void) | undefined;
  now?: () => Date;
}

/** The operator command line's routes over supplier releases: list them, retry one. */
export function internalReleasesRouter(deps: InternalReleasesDeps) {
  const now = deps.now ?? (() => new Date());
  return s.router(internalInventoryReleasesContract, {
    listSupplierReleases: async ({ query }) => ({ status: 200, body: await listReleases(deps.knex, deps.cursors, query) }),
    retrySupplierRelease: async ({ params }) => {
      const release = await retryRelease(deps.knex, params.releaseId, now().getTime());
      deps.onReleaseRecorded?.();
      return { status: 200, body: release };
    },
  });
}
