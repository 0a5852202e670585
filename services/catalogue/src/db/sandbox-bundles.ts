import type { Knex } from 'knex';
import { matchesFilter, type BundleFilter, type CatalogueBundle } from '../domain/bundle.ts';
import { allBundles } from './bundles.ts';

const byName = (a: CatalogueBundle, b: CatalogueBundle) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The sandbox catalogue as the use cases read it. */
export interface SandboxBundles {
  /** Listed (not retired) bundles passing `filter`, by name, after `afterName`, at most `limit`. */
  list(filter: BundleFilter, afterName: string | undefined, limit: number): Promise<CatalogueBundle[]>;
  /** A bundle by exact name, retired or not. */
  get(name: string): Promise<CatalogueBundle | undefined>;
  /** Every bundle, retired ones too, by name. */
  all(): Promise<CatalogueBundle[]>;
}

/**
 * The sandbox catalogue served from memory: it changes only by migration, which runs before an
 * instance starts, so it is read once (on first use) and every list or lookup after that costs
 * no database round trip. Same answers as the table: listed bundles by name in byte order.
 */
export function createSandboxBundles(db: Knex): SandboxBundles {
  let loading: Promise<{ sorted: CatalogueBundle[]; byName: Map<string, CatalogueBundle> }> | undefined;
  const load = () => {
    loading ??= allBundles(db).then(
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
    async list(filter, afterName, limit) {
      const { sorted } = await load();
      const page: CatalogueBundle[] = [];
      for (const bundle of sorted) {
        if (page.length === limit) break;
        if ((afterName === undefined || bundle.name > afterName) && matchesFilter(bundle, filter)) page.push(bundle);
      }
      return page;
    },
    async get(name) {
      return (await load()).byName.get(name);
    },
    async all() {
      return (await load()).sorted;
    },
  };
}
