import type { Bundle, Environment, InternalBundle, Region, ValidityStart } from '@connectivity/contracts';

/**
 * A bundle as the catalogue keeps it, whichever catalogue (the sandbox's or a supplier's) it
 * comes from: the public fields plus the region it is sold under and whether it is retired.
 */
export interface CatalogueBundle {
  name: string;
  description: string;
  data_mb: number | null;
  unlimited: boolean;
  duration_days: number;
  countries: string[];
  region: Region;
  price_cents: number;
  /** No longer listed; an order naming it is refused with capability_not_orderable. */
  retired: boolean;
  /** When `duration_days` starts counting (record 0230). */
  validity_start: ValidityStart;
  /** Days from purchase to install the profile, where the supplier sets a deadline (record 0230); null otherwise. */
  install_window_days: number | null;
  /** Bytes in one of the catalogue's megabytes: the supplier's own rule (record 0231). */
  bytes_per_mb: number;
}

/** The sandbox's megabyte (and eSIM Go's, record 0231): 1 GB = 1000 MB = 10^9 bytes. */
export const DECIMAL_MB = 1_000_000;

export interface BundleFilter {
  /** Upper case; a bundle must cover every one. */
  countries?: string[] | undefined;
  region?: Region | undefined;
}

/** Whether a listed bundle passes the filters of GET /v1/esim/bundles. */
export function matchesFilter(bundle: CatalogueBundle, filter: BundleFilter): boolean {
  if (bundle.retired) return false;
  if (filter.region !== undefined && bundle.region !== filter.region) return false;
  return (filter.countries ?? []).every((country) => bundle.countries.includes(country));
}

/** The public bundle object; the environment decides `simulated` and `rated`. */
export function toPublicBundle(bundle: CatalogueBundle, live: boolean): Bundle {
  return {
    object: 'bundle',
    name: bundle.name,
    description: bundle.description,
    data_mb: bundle.data_mb,
    unlimited: bundle.unlimited,
    duration_days: bundle.duration_days,
    validity_start: bundle.validity_start,
    countries: [...bundle.countries].sort(),
    price_cents: bundle.price_cents,
    currency: 'USD',
    simulated: !live,
    rated: live,
  };
}

/** The bundle as inventory orders it: the public fields plus what an order needs to set up its eSIMs. */
export function toInternalBundle(bundle: CatalogueBundle, live: boolean, environments: Environment[]): InternalBundle {
  return {
    ...toPublicBundle(bundle, live),
    retired: bundle.retired,
    environments,
    install_window_days: bundle.install_window_days,
    data_limit_bytes: bundle.data_mb === null || bundle.unlimited ? null : bundle.data_mb * bundle.bytes_per_mb,
  };
}
