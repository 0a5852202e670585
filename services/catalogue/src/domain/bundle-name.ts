import type { Region, ValidityStart } from '@connectivity/contracts';
import { REGION_CODES, countriesOf, regionOfCountry } from './regions.ts';
import { DECIMAL_MB, type CatalogueBundle } from './bundle.ts';

/** How a bundle is described before its name, description and countries are derived. */
export interface BundleSpec {
  /** Gigabytes, or 'unlimited'. */
  data: number | 'unlimited';
  days: number;
  /** One country (ISO alpha-2) or a region. */
  area: { country: string; label: string } | { region: Region; label: string };
  price_cents: number;
  retired?: boolean;
  /** A qualifier that keeps a name unique, e.g. `LEGACY` or `DEMO`. */
  suffix?: string;
  /** When the validity starts counting (default `purchase`). */
  validity_start?: ValidityStart;
}

/** `esim_<5GB|UL>_<30>D_<FR|EU|GLOBAL>[_<SUFFIX>]`: unique, stable, readable. */
export function bundleName(spec: BundleSpec): string {
  const data = spec.data === 'unlimited' ? 'UL' : `${spec.data}GB`;
  const area = 'country' in spec.area ? spec.area.country : REGION_CODES[spec.area.region];
  return ['esim', data, `${spec.days}D`, area, ...(spec.suffix ? [spec.suffix] : [])].join('_');
}

export function bundleFromSpec(spec: BundleSpec): CatalogueBundle {
  const countries = 'country' in spec.area ? [spec.area.country] : [...countriesOf(spec.area.region)];
  const region = 'country' in spec.area ? regionOfCountry(spec.area.country) : spec.area.region;
  if (region === undefined) throw new Error(`no region lists country ${'country' in spec.area ? spec.area.country : ''}`);
  const amount = spec.data === 'unlimited' ? 'Unlimited data' : `${spec.data} GB`;
  const where = 'country' in spec.area ? `in ${spec.area.label}` : `in ${countries.length} countries of ${spec.area.label}`;
  const days = spec.days === 1 ? '1 day' : `${spec.days} days`;
  const from = spec.validity_start === 'first_use' ? ', from its first use' : '';
  return {
    name: bundleName(spec),
    description: `${amount} for ${days} ${where}${from}.`,
    data_mb: spec.data === 'unlimited' ? null : spec.data * 1000,
    unlimited: spec.data === 'unlimited',
    duration_days: spec.days,
    countries: countries.sort(),
    region,
    price_cents: spec.price_cents,
    retired: spec.retired ?? false,
    validity_start: spec.validity_start ?? 'purchase',
    install_window_days: null,
    bytes_per_mb: DECIMAL_MB,
  };
}
