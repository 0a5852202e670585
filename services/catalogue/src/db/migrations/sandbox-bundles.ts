import { bundleFromSpec, type BundleSpec } from '../../domain/bundle-name.ts';
import type { CatalogueBundle } from '../../domain/bundle.ts';

const c = (country: string, label: string) => ({ country, label });
const europe = { region: 'europe', label: 'Europe' } as const;
const asia = { region: 'asia', label: 'Asia' } as const;
const world = { region: 'global', label: 'the world' } as const;

/**
 * The sandbox catalogue as first seeded (migration 0002). Names are part of the API: a name,
 * once published, keeps its meaning; a bundle that stops being sold is retired, not renamed.
 */
const SPECS: BundleSpec[] = [
  { data: 1, days: 7, area: c('US', 'the United States'), price_cents: 499 },
  { data: 3, days: 15, area: c('US', 'the United States'), price_cents: 1099 },
  { data: 10, days: 30, area: c('US', 'the United States'), price_cents: 2599 },
  { data: 'unlimited', days: 7, area: c('US', 'the United States'), price_cents: 2999 },
  { data: 1, days: 7, area: c('GB', 'the United Kingdom'), price_cents: 450 },
  { data: 5, days: 30, area: c('GB', 'the United Kingdom'), price_cents: 1399 },
  { data: 3, days: 30, area: c('FR', 'France'), price_cents: 999 },
  { data: 5, days: 30, area: c('DE', 'Germany'), price_cents: 1399 },
  { data: 2, days: 15, area: c('ES', 'Spain'), price_cents: 699 },
  { data: 3, days: 30, area: c('IT', 'Italy'), price_cents: 999 },
  { data: 5, days: 30, area: c('JP', 'Japan'), price_cents: 1699 },
  { data: 'unlimited', days: 10, area: c('JP', 'Japan'), price_cents: 3499 },
  { data: 3, days: 15, area: c('TH', 'Thailand'), price_cents: 899 },
  { data: 5, days: 30, area: c('IN', 'India'), price_cents: 1199 },
  { data: 1, days: 1, area: c('SG', 'Singapore'), price_cents: 299 },
  { data: 10, days: 30, area: c('AU', 'Australia'), price_cents: 2999 },
  { data: 5, days: 30, area: c('CA', 'Canada'), price_cents: 1899 },
  { data: 2, days: 7, area: c('MX', 'Mexico'), price_cents: 899 },
  { data: 3, days: 30, area: c('BR', 'Brazil'), price_cents: 1299 },
  { data: 2, days: 15, area: c('ZA', 'South Africa'), price_cents: 1099 },
  { data: 3, days: 15, area: c('AE', 'the United Arab Emirates'), price_cents: 1499 },
  { data: 5, days: 30, area: europe, price_cents: 1599 },
  { data: 20, days: 30, area: europe, price_cents: 3999 },
  { data: 'unlimited', days: 15, area: europe, price_cents: 4999 },
  { data: 10, days: 30, area: asia, price_cents: 2799 },
  { data: 5, days: 30, area: { region: 'africa', label: 'Africa' }, price_cents: 3299 },
  { data: 3, days: 15, area: { region: 'caribbean', label: 'the Caribbean' }, price_cents: 2499 },
  { data: 5, days: 30, area: { region: 'latin-america', label: 'Latin America' }, price_cents: 2899 },
  { data: 5, days: 30, area: { region: 'middle-east', label: 'the Middle East' }, price_cents: 2699 },
  { data: 10, days: 30, area: { region: 'north-america', label: 'North America' }, price_cents: 2999 },
  { data: 5, days: 30, area: { region: 'oceania', label: 'Oceania' }, price_cents: 2199 },
  { data: 1, days: 7, area: world, price_cents: 999 },
  { data: 5, days: 30, area: world, price_cents: 3499 },
  { data: 20, days: 90, area: world, price_cents: 8999 },
  { data: 50, days: 90, area: world, price_cents: 17999 },
  // Retired: no longer listed, still known, so an order naming it gets capability_not_orderable.
  { data: 2, days: 14, area: europe, price_cents: 899, retired: true, suffix: 'LEGACY' },
  // Only in the sandbox catalogue (the supplier does not sell it): a live order gets capability_not_live.
  { data: 1, days: 3, area: c('US', 'the United States'), price_cents: 199, suffix: 'DEMO' },
];

export const SANDBOX_BUNDLES: readonly CatalogueBundle[] = SPECS.map(bundleFromSpec);

/**
 * The sandbox's `first_use` bundles (migration 0004, record 0230): their validity starts at the
 * eSIM's first (simulated) use, as a live vendor's does, so integrators can test both kinds.
 */
const FIRST_USE_SPECS: BundleSpec[] = [
  { data: 1, days: 7, area: c('US', 'the United States'), price_cents: 499, suffix: 'FIRSTUSE', validity_start: 'first_use' },
  { data: 5, days: 30, area: europe, price_cents: 1599, suffix: 'FIRSTUSE', validity_start: 'first_use' },
  { data: 'unlimited', days: 7, area: c('JP', 'Japan'), price_cents: 3299, suffix: 'FIRSTUSE', validity_start: 'first_use' },
];

export const FIRST_USE_SANDBOX_BUNDLES: readonly CatalogueBundle[] = FIRST_USE_SPECS.map(bundleFromSpec);

/** Names of sandbox bundles no live supplier sells. */
export const SANDBOX_ONLY_BUNDLES: ReadonlySet<string> = new Set(['esim_1GB_3D_US_DEMO']);
