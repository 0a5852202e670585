import type { Region } from '@connectivity/contracts';

/**
 * The member countries (ISO 3166-1 alpha-2) of each region of record 0256, as a regional
 * bundle covers them. `global` is the union of the others: the countries a global bundle covers.
 */
export const REGION_COUNTRIES: Readonly<Record<Exclude<Region, 'global'>, readonly string[]>> = {
  africa: ['ZA', 'EG', 'MA', 'TN', 'KE', 'TZ', 'UG', 'NG', 'GH', 'SN', 'CI', 'MU'],
  asia: ['JP', 'KR', 'CN', 'HK', 'MO', 'TW', 'SG', 'MY', 'TH', 'VN', 'ID', 'PH', 'KH', 'IN', 'LK'],
  caribbean: ['JM', 'DO', 'BS', 'BB', 'TT', 'PR', 'AG', 'LC', 'KY', 'CW', 'AW', 'GD'],
  europe: [
    'AT',
    'BE',
    'BG',
    'HR',
    'CY',
    'CZ',
    'DK',
    'EE',
    'FI',
    'FR',
    'DE',
    'GR',
    'HU',
    'IS',
    'IE',
    'IT',
    'LV',
    'LI',
    'LT',
    'LU',
    'MT',
    'NL',
    'NO',
    'PL',
    'PT',
    'RO',
    'SK',
    'SI',
    'ES',
    'SE',
    'CH',
    'GB',
  ],
  'latin-america': ['BR', 'AR', 'CL', 'CO', 'PE', 'EC', 'UY', 'PY', 'BO', 'CR', 'PA', 'GT'],
  'middle-east': ['AE', 'SA', 'QA', 'KW', 'BH', 'OM', 'JO', 'IL'],
  'north-america': ['US', 'CA', 'MX'],
  oceania: ['AU', 'NZ', 'FJ'],
};

export const GLOBAL_COUNTRIES: readonly string[] = [...new Set(Object.values(REGION_COUNTRIES).flat())].sort();

export function countriesOf(region: Region): readonly string[] {
  return region === 'global' ? GLOBAL_COUNTRIES : REGION_COUNTRIES[region];
}

/** The region a single country belongs to, so a one-country bundle is found under its region too. */
export function regionOfCountry(country: string): Exclude<Region, 'global'> | undefined {
  return (Object.keys(REGION_COUNTRIES) as Exclude<Region, 'global'>[]).find((region) => REGION_COUNTRIES[region].includes(country));
}

/** The short code a region takes in bundle names, e.g. `esim_5GB_30D_EU`. */
export const REGION_CODES: Readonly<Record<Region, string>> = {
  africa: 'AF',
  asia: 'ASIA',
  caribbean: 'CARIB',
  europe: 'EU',
  'latin-america': 'LATAM',
  'middle-east': 'ME',
  'north-america': 'NA',
  oceania: 'OC',
  global: 'GLOBAL',
};
