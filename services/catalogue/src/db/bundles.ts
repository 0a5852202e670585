import type { Region } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { DECIMAL_MB, type CatalogueBundle } from '../domain/bundle.ts';
import { SCHEMA } from './schema.ts';

/** A row is the domain's bundle, with the region as the database holds it (plain text). */
type BundleRow = Omit<CatalogueBundle, 'region' | 'install_window_days' | 'bytes_per_mb'> & { region: string };

const COLUMNS = ['name', 'description', 'data_mb', 'unlimited', 'duration_days', 'countries', 'region', 'price_cents', 'retired', 'validity_start'];

/** The sandbox counts a megabyte as 10^6 bytes and sets no install deadline. */
const toBundle = (row: BundleRow): CatalogueBundle => ({ ...row, region: row.region as Region, install_window_days: null, bytes_per_mb: DECIMAL_MB });

/**
 * Every bundle of the sandbox catalogue (`catalogue.bundles`), retired ones too, by name in byte
 * order (collate "C"), so paging agrees with JavaScript's sort whatever the database collation.
 */
export async function allBundles(db: Knex): Promise<CatalogueBundle[]> {
  const rows = await db.withSchema(SCHEMA).from<BundleRow>('bundles').select<BundleRow[]>(COLUMNS).orderByRaw('name collate "C"');
  return rows.map(toBundle);
}
