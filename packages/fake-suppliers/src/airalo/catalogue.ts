/**
 * The fake's package catalogue: local, regional and global eSIMs, fixed and unlimited, several
 * durations, in the shape of GET /v2/packages (destination → operators → packages). Prices are
 * USD: `price` is the recommended retail price, `net_price` what the partner pays.
 */
export interface AiraloPackageSpec {
  id: string;
  type: 'sim' | 'topup';
  /** Data in MB (1 GB = 1024); 0 for unlimited. */
  amount: number;
  day: number;
  is_unlimited: boolean;
  price: number;
  net_price: number;
}

export interface AiraloOperatorSpec {
  id: number;
  title: string;
  type: 'local' | 'global';
  /** ISO 3166-1 alpha-2 codes of the countries covered. */
  countries: string[];
  apn_value: string;
  packages: AiraloPackageSpec[];
}

export interface AiraloDestinationSpec {
  slug: string;
  /** Empty for regional and global destinations. */
  country_code: string;
  title: string;
  operators: AiraloOperatorSpec[];
}

const COUNTRY_NAMES: Record<string, string> = {
  US: 'United States',
  FR: 'France',
  DE: 'Germany',
  GB: 'United Kingdom',
  JP: 'Japan',
  IT: 'Italy',
  ES: 'Spain',
  NL: 'Netherlands',
  PT: 'Portugal',
  AT: 'Austria',
  BE: 'Belgium',
  TH: 'Thailand',
  SG: 'Singapore',
  KR: 'South Korea',
  CA: 'Canada',
  AU: 'Australia',
  BR: 'Brazil',
  MX: 'Mexico',
  TR: 'Turkey',
  AE: 'United Arab Emirates',
};

export const countryName = (code: string) => COUNTRY_NAMES[code] ?? code;

const fixed = (prefix: string, gb: number, day: number, price: number, net: number): AiraloPackageSpec => ({
  id: `${prefix}-${day}days-${gb}gb`,
  type: 'sim',
  amount: gb * 1024,
  day,
  is_unlimited: false,
  price,
  net_price: net,
});

const unlimited = (prefix: string, day: number, price: number, net: number): AiraloPackageSpec => ({
  id: `${prefix}-${day}days-unlimited`,
  type: 'sim',
  amount: 0,
  day,
  is_unlimited: true,
  price,
  net_price: net,
});

const topup = (sim: AiraloPackageSpec): AiraloPackageSpec => ({ ...sim, id: `${sim.id}-topup`, type: 'topup' });

const EUROPE = ['FR', 'DE', 'GB', 'IT', 'ES', 'NL', 'PT', 'AT', 'BE'];
const ASIA = ['JP', 'TH', 'SG', 'KR'];
const WORLD = [...EUROPE, ...ASIA, 'US', 'CA', 'AU', 'BR', 'MX', 'TR', 'AE'];

const changeUs1 = fixed('change', 1, 7, 4.5, 1.8);

export const AIRALO_CATALOGUE: AiraloDestinationSpec[] = [
  {
    slug: 'united-states',
    country_code: 'US',
    title: 'United States',
    operators: [
      {
        id: 1180,
        title: 'Change',
        type: 'local',
        countries: ['US'],
        apn_value: 'globaldata',
        packages: [changeUs1, fixed('change', 3, 15, 11, 4.4), fixed('change', 10, 30, 26, 10.4), unlimited('change', 30, 69, 32), topup(changeUs1)],
      },
    ],
  },
  {
    slug: 'france',
    country_code: 'FR',
    title: 'France',
    operators: [
      { id: 826, title: 'Élan', type: 'local', countries: ['FR'], apn_value: 'elan', packages: [fixed('elan', 1, 7, 4.5, 1.4), fixed('elan', 5, 30, 16, 6.4)] },
    ],
  },
  {
    slug: 'germany',
    country_code: 'DE',
    title: 'Germany',
    operators: [
      {
        id: 844,
        title: 'Hallo Mobil',
        type: 'local',
        countries: ['DE'],
        apn_value: 'hallo',
        packages: [fixed('hallo-mobil', 1, 7, 4.5, 1.6), fixed('hallo-mobil', 3, 30, 11, 4.2), unlimited('hallo-mobil', 7, 22, 10)],
      },
    ],
  },
  {
    slug: 'united-kingdom',
    country_code: 'GB',
    title: 'United Kingdom',
    operators: [
      {
        id: 903,
        title: 'Uki Mobile',
        type: 'local',
        countries: ['GB'],
        apn_value: 'globaldata',
        packages: [fixed('uki-mobile', 2, 15, 7.5, 1.6), fixed('uki-mobile', 5, 30, 15, 5.9)],
      },
    ],
  },
  {
    slug: 'japan',
    country_code: 'JP',
    title: 'Japan',
    operators: [
      {
        id: 640,
        title: 'Moshi Moshi',
        type: 'local',
        countries: ['JP'],
        apn_value: 'plus.4g',
        packages: [fixed('moshi-moshi', 1, 7, 4.5, 1.9), unlimited('moshi-moshi', 15, 27, 13)],
      },
    ],
  },
  {
    slug: 'europe',
    country_code: '',
    title: 'Europe',
    operators: [
      {
        id: 1302,
        title: 'Eurolink',
        type: 'global',
        countries: EUROPE,
        apn_value: 'eurolink',
        packages: [fixed('eurolink', 1, 7, 5, 2.1), fixed('eurolink', 10, 30, 37, 15)],
      },
    ],
  },
  {
    slug: 'asia',
    country_code: '',
    title: 'Asia',
    operators: [{ id: 1310, title: 'Asialink', type: 'global', countries: ASIA, apn_value: 'asialink', packages: [fixed('asialink', 3, 30, 18, 7.5)] }],
  },
  {
    slug: 'world',
    country_code: '',
    title: 'Discover Global',
    operators: [
      {
        id: 1400,
        title: 'Discover Global',
        type: 'global',
        countries: WORLD,
        apn_value: 'discover',
        packages: [fixed('discover', 1, 7, 9, 4), fixed('discover', 5, 30, 35, 16)],
      },
    ],
  },
];

export interface CataloguedPackage {
  destination: AiraloDestinationSpec;
  operator: AiraloOperatorSpec;
  pkg: AiraloPackageSpec;
}

/** Every package by id. */
export function packageIndex(catalogue: AiraloDestinationSpec[]): Map<string, CataloguedPackage> {
  const index = new Map<string, CataloguedPackage>();
  for (const destination of catalogue)
    for (const operator of destination.operators) for (const pkg of operator.packages) index.set(pkg.id, { destination, operator, pkg });
  return index;
}

/** "1 GB", "Unlimited". */
export const dataLabel = (pkg: AiraloPackageSpec) => (pkg.is_unlimited ? 'Unlimited' : `${pkg.amount / 1024} GB`);

/** "1 GB - 7 Days". */
export const packageTitle = (pkg: AiraloPackageSpec) => `${dataLabel(pkg)} - ${pkg.day} Days`;
