/**
 * The fake's bundle catalogue in the shape of GET /catalogue: names as eSIM Go writes them
 * (case-sensitive, e.g. esim_1GB_7D_GB_V2), data in MB, duration in days, price in the
 * organisation's currency (USD).
 */
export interface EsimGoBundleSpec {
  name: string;
  description: string;
  groups: string[];
  /** Base countries (ISO alpha-2). */
  countries: string[];
  /** MB (1 GB = 1000 MB); the daily allowance for unlimited bundles. */
  dataAmount: number;
  duration: number;
  unlimited: boolean;
  price: number;
}

const REGIONS: Record<string, [string, string]> = {
  GB: ['United Kingdom', 'Europe'],
  FR: ['France', 'Europe'],
  DE: ['Germany', 'Europe'],
  IT: ['Italy', 'Europe'],
  ES: ['Spain', 'Europe'],
  NL: ['Netherlands', 'Europe'],
  PT: ['Portugal', 'Europe'],
  US: ['United States', 'North America'],
  CA: ['Canada', 'North America'],
  JP: ['Japan', 'Asia'],
  TH: ['Thailand', 'Asia'],
  SG: ['Singapore', 'Asia'],
  AU: ['Australia', 'Oceania'],
  BR: ['Brazil', 'LATAM'],
  MX: ['Mexico', 'LATAM'],
  AE: ['United Arab Emirates', 'Middle East'],
  ZA: ['South Africa', 'Africa'],
};

export const countryEntry = (iso: string) => ({ name: REGIONS[iso]?.[0] ?? iso, region: REGIONS[iso]?.[1] ?? 'Global', iso });

const EUROPE = ['FR', 'DE', 'GB', 'IT', 'ES', 'NL', 'PT'];
const GLOBAL = Object.keys(REGIONS);

const fixed = (gb: number, days: number, code: string, label: string, countries: string[], price: number): EsimGoBundleSpec => ({
  name: `esim_${gb}GB_${days}D_${code}_V2`,
  description: `eSIM, ${gb}GB, ${days} Days, ${label}, V2`,
  groups: [days >= 90 ? 'Standard Long Duration' : 'Standard Fixed'],
  countries,
  dataAmount: gb * 1000,
  duration: days,
  unlimited: false,
  price,
});

const unlimitedLite = (days: number, code: string, label: string, countries: string[], price: number): EsimGoBundleSpec => ({
  name: `esim_UL_${days}D_${code}_V2`,
  description: `eSIM, Unlimited Lite, ${days} Days, ${label}, V2`,
  groups: ['Standard Unlimited Lite'],
  countries,
  dataAmount: 1000,
  duration: days,
  unlimited: true,
  price,
});

export const ESIM_GO_CATALOGUE: EsimGoBundleSpec[] = [
  fixed(1, 7, 'GB', 'United Kingdom', ['GB'], 1.8),
  fixed(3, 30, 'GB', 'United Kingdom', ['GB'], 4.3),
  fixed(1, 7, 'US', 'United States', ['US'], 2.1),
  fixed(5, 30, 'US', 'United States', ['US'], 8.4),
  fixed(1, 7, 'FR', 'France', ['FR'], 1.6),
  fixed(1, 7, 'DE', 'Germany', ['DE'], 1.6),
  fixed(2, 15, 'JP', 'Japan', ['JP'], 3.9),
  fixed(10, 30, 'EUR', 'Europe', EUROPE, 11.5),
  fixed(5, 30, 'RGBS', 'Global', GLOBAL, 19.9),
  fixed(50, 90, 'RGBS', 'Global', GLOBAL, 95),
  unlimitedLite(1, 'GB', 'United Kingdom', ['GB'], 2.3),
  unlimitedLite(7, 'US', 'United States', ['US'], 14.5),
];

/** Networks per country for GET /networks. */
export const networksOf = (iso: string) => [
  { name: `${countryEntry(iso).name} Telecom`, brandName: `${iso} Mobile`, mcc: '234', mnc: '15', tagid: `${iso}TEL`, speed: ['4G', '5G'] },
];
