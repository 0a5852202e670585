import type { Bundle, Region } from '@connectivity/contracts';

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
}

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
    countries: [...bundle.countries].sort(),
    price_cents: bundle.price_cents,
    currency: 'USD',
    simulated: !live,
    rated: live,
  };
}
