import type { Region } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { BundleFilter, CatalogueBundle } from '../domain/bundle.ts';
import { SCHEMA } from './migrations/schema.ts';

/** A row is the domain's bundle, with the region as the database holds it (plain text). */
type BundleRow = Omit<CatalogueBundle, 'region'> & { region: string };

const COLUMNS = ['name', 'description', 'data_mb', 'unlimited', 'duration_days', 'countries', 'region', 'price_cents', 'retired'];

const toBundle = (row: BundleRow): CatalogueBundle => ({ ...row, region: row.region as Region });

/** The sandbox catalogue in `catalogue.bundles`. */
export function createBundleRepository(knex: Knex) {
  const table = () => knex.withSchema(SCHEMA).from<BundleRow>('bundles');
  return {
    /** Listed (not retired) bundles passing `filter`, by name, after `afterName`, at most `limit`. */
    async list(filter: BundleFilter, afterName: string | undefined, limit: number): Promise<CatalogueBundle[]> {
      // Byte order (collate "C"), so paging agrees with JavaScript's sort whatever the database collation.
      const query = table().select(COLUMNS).where('retired', false).orderByRaw('name collate "C"').limit(limit);
      if (filter.region !== undefined) query.andWhere('region', filter.region);
      if (filter.countries !== undefined && filter.countries.length > 0) {
        query.andWhereRaw('countries @> ?::text[]', [filter.countries]);
      }
      if (afterName !== undefined) query.andWhereRaw('name collate "C" > ?', [afterName]);
      return ((await query) as BundleRow[]).map(toBundle);
    },
    /** A bundle by exact name, retired or not. */
    async get(name: string): Promise<CatalogueBundle | undefined> {
      const row = (await table().select(COLUMNS).where('name', name).first()) as BundleRow | undefined;
      return row && toBundle(row);
    },
    async all(): Promise<CatalogueBundle[]> {
      const rows = await table().select<BundleRow[]>(COLUMNS).orderByRaw('name collate "C"');
      return rows.map(toBundle);
    },
  };
}

export type BundleRepository = ReturnType<typeof createBundleRepository>;
