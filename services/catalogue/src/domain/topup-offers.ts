import type { CatalogueBundle } from './bundle.ts';

/**
 * Whether `offer` can top up an eSIM bought with `base` (record 0240): listed, covering every country of
 * the base bundle (a regional or global bundle tops up a single-country eSIM of one of its countries), and
 * of the same kind (an unlimited eSIM takes unlimited bundles, a limited one limited bundles: data added
 * to no limit, or no limit added to a count, means nothing).
 */
export function canTopUp(base: Pick<CatalogueBundle, 'countries' | 'unlimited'>, offer: CatalogueBundle): boolean {
  return !offer.retired && offer.unlimited === base.unlimited && base.countries.every((country) => offer.countries.includes(country));
}
