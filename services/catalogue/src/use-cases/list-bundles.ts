import type { Caller } from '@connectivity/platform';
import { matchesFilter, type BundleFilter, type CatalogueBundle } from '../domain/bundle.ts';
import { assertLiveOrdering, liveCatalogue, type CatalogueDeps } from './live-catalogue.ts';

/**
 * Up to `limit` listed bundles of the caller's environment after `afterName`, by name (byte
 * order): the sandbox from its catalogue, live from the supplier, priced, filtered and paged.
 */
export async function listBundles(
  deps: CatalogueDeps,
  caller: Caller,
  filter: BundleFilter,
  afterName: string | undefined,
  limit: number,
): Promise<CatalogueBundle[]> {
  if (caller.environment === 'test') return deps.bundles.list(filter, afterName, limit);
  await assertLiveOrdering(deps, caller.accountId);
  return (await liveCatalogue(deps))
    .filter((b) => matchesFilter(b, filter) && (afterName === undefined || b.name > afterName))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, limit);
}
