import { contract } from '@connectivity/contracts';
import { getCaller, toPage, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { z } from 'zod';
import { toPublicBundle } from '../domain/bundle.ts';
import { listBundles } from '../use-cases/list-bundles.ts';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';

const s = initServer();
const afterName = z.string().min(1);

/** GET /v1/esim/bundles: by name, paged by a cursor bound to the caller and the filters. */
export function listBundlesRouter(deps: CatalogueDeps, cursors: CursorCodec) {
  return s.router(contract.catalogue, {
    listBundles: async ({ query, res }) => {
      const caller = getCaller(res);
      const { accountId, environment } = caller;
      // Sorted and de-duplicated, so `FR,GB` and `gb,fr` bind the same cursor.
      const countries = query.countries && [...new Set(query.countries)].sort();
      const binding = { list: 'bundles', accountId, environment, region: query.region, countries };
      const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, afterName);

      const fetched = await listBundles(deps, caller, { countries, region: query.region }, after, query.limit + 1);
      const items = fetched.map((b) => toPublicBundle(b, environment === 'live'));
      // The sandbox catalogue changes only by migration: a caller (and the gateway, per key) may
      // keep this answer a minute. Live answers follow the supplier and are never kept.
      if (environment === 'test') res.setHeader('Cache-Control', 'private, max-age=60');
      return { status: 200, body: toPage(items, query.limit, (last) => cursors.encode(last.name, binding)) };
    },
  });
}
