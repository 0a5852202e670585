import { matchesFilter, type BundleFilter, type CatalogueBundle } from '../domain/bundle.ts';
import type { BundleRepository } from './bundle-repository.ts';

const byName = (a: CatalogueBundle, b: CatalogueBundle) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The sandbox catalogue served from memory: it changes only by migration, which runs before an
 * instance starts, so it is read once (on first use) and every list or lookup after that costs
 * no database round trip. Same answers as the table: listed bundles by name in byte order.
 */
export function createSandboxBundles(repository: BundleRepository): BundleRepository {
  let loading: Promise<{ sorted: CatalogueBundle[]; byName: Map<string, CatalogueBundle> }> | undefined;
  const load = () => {
    loading ??= repository.all().then(
      (all) => {
        const sorted = [...all].sort(byName);
        return { sorted, byName: new Map(sorted.map((bundle) => [bundle.name, bundle])) };
      },
      (error: unknown) => {
        // A failed read is tried again by the next request, not remembered.
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    async list(filter: BundleFilter, afterName: string | undefined, limit: number) {
      const { sorted } = await load();
      const page: CatalogueBundle[] = [];
      for (const bundle of sorted) {
        if (page.length === limit) break;
        if ((afterName === undefined || bundle.name > afterName) && matchesFilter(bundle, filter)) page.push(bundle);
      }
      return page;
    },
    async get(name: string) {
      return (await load()).byName.get(name);
    },
    async all() {
      return (await load()).sorted;
    },
  };
}
