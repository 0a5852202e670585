import { BUNDLE_NAME_PATTERN, REGIONS, type Region } from '@connectivity/contracts';
import { errorMessage, type Logger } from '@connectivity/platform';
import { retailPriceCents } from '../../domain/pricing.ts';
import { REGION_COUNTRIES } from '../../domain/regions.ts';
import { SupplierError, type SupplierBundle } from './port.ts';

/** A vendor's catalogue read into our terms: bundles, and each one's cost to us. */
export interface VendorCatalogue {
  bundles: SupplierBundle[];
  /** What the vendor charges us per profile, in cents of `currency`, by bundle name. */
  costs: Map<string, number>;
  /** ISO 4217 code of `costs`. */
  currency: string;
}

export interface CatalogueCacheOptions {
  /** A copy younger than this is served without asking the vendor. */
  ttlMs: number;
  /** When the vendor cannot be read, a copy up to this old is still served; older, the catalogue is unavailable. */
  maxStaleMs: number;
  marginPercent: number;
  vendor: string;
  logger: Logger;
}

/**
 * The live catalogue and its prices, read from the vendor at most once per `ttlMs` (one read at a
 * time, shared by concurrent callers) and served stale for at most `maxStaleMs` while the vendor
 * is down (docs/decisions/0134-live-catalogue-staleness-and-currency.md). Prices are priced only
 * from a USD catalogue: any other currency is `pricing_unavailable`, never a guessed rate.
 */
export function createCatalogueCache(options: CatalogueCacheOptions, load: () => Promise<VendorCatalogue>) {
  let held: { catalogue: VendorCatalogue; at: number } | undefined;
  let loading: Promise<VendorCatalogue> | undefined;

  async function current(): Promise<VendorCatalogue> {
    const now = Date.now();
    if (held && now - held.at < options.ttlMs) return held.catalogue;
    loading ??= load()
      .then((catalogue) => {
        held = { catalogue, at: Date.now() };
        return catalogue;
      })
      .finally(() => {
        loading = undefined;
      });
    try {
      return await loading;
    } catch (error) {
      if (held && Date.now() - held.at <= options.maxStaleMs) {
        options.logger.warn({ vendor: options.vendor, err: errorMessage(error), ageMs: Date.now() - held.at }, 'live catalogue served from a stale copy');
        return held.catalogue;
      }
      throw error;
    }
  }

  return {
    current,
    async bundles(): Promise<SupplierBundle[]> {
      return (await current()).bundles;
    },
    async prices(): Promise<Map<string, number>> {
      const catalogue = await current();
      if (catalogue.currency !== 'USD') {
        throw new SupplierError('unavailable', `${options.vendor} prices its catalogue in ${catalogue.currency}; only USD costs are priced`);
      }
      return new Map([...catalogue.costs].map(([name, cost]) => [name, retailPriceCents(cost, options.marginPercent)]));
    },
    /** The cached copy, if any, without asking the vendor (e.g. to read a callback's package). */
    peek(): VendorCatalogue | undefined {
      return held?.catalogue;
    },
    /** Drops the copy: the vendor's prices changed (record 0160), so it must not be served even stale. */
    invalidate(): void {
      held = undefined;
    },
  };
}

export type CatalogueCache = ReturnType<typeof createCatalogueCache>;

/** A vendor's decimal amount as whole cents (vendors quote 2 decimals; more are rounded). */
export const centsOf = (amount: number): number => Math.round(amount * 100);

const ISO_COUNTRY = /^[A-Z]{2}$/;

/** ISO alpha-2 codes, upper case, sorted and unique; anything else a vendor lists is dropped. */
export function isoCountries(codes: readonly string[]): string[] {
  return [...new Set(codes.map((c) => c.trim().toUpperCase()).filter((c) => ISO_COUNTRY.test(c)))].sort();
}

/**
 * The region a bundle is sold under: the one region of ours that holds every country it covers,
 * else `global` (a bundle over several regions, or a country no region lists).
 */
export function regionOf(countries: readonly string[]): Region {
  const regions = (Object.keys(REGION_COUNTRIES) as Exclude<Region, 'global'>[]).filter((region) =>
    countries.every((country) => REGION_COUNTRIES[region].includes(country)),
  );
  return countries.length > 0 && regions.length === 1 ? regions[0]! : 'global';
}

export const isRegion = (value: string): value is Region => (REGIONS as readonly string[]).includes(value);

/** Whether a vendor's bundle id can be our bundle name as it is (it is the vendor's stable key). */
export const usableBundleName = (name: string): boolean => BUNDLE_NAME_PATTERN.test(name);
