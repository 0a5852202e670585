import { z } from 'zod';
import { ENVIRONMENTS } from './enums.ts';

/**
 * Id prefixes of record 0250, plus `msgatt` for webhook delivery attempts, `clock` for test clocks,
 * `btx` for balance transactions, `re` for refunds and `top` for top-ups.
 */
export const ID_PREFIXES = {
  esim: 'esim',
  order: 'ord',
  event: 'evt',
  apiKey: 'key',
  webhookEndpoint: 'we',
  webhookAttempt: 'msgatt',
  account: 'acct',
  request: 'req',
  testClock: 'clock',
  balanceTransaction: 'btx',
  refund: 're',
  topup: 'top',
} as const;
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/** `<prefix>_` then a time-sortable body of 20 or more characters in [0-9A-Za-z]. */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_[0-9A-Za-z]{20,}$`);
}

export function idSchema(prefix: IdPrefix) {
  return z.string().regex(idPattern(prefix), { message: `must be an id of the form ${prefix}_<20+ letters and digits>` });
}

export const ICCID_PATTERN = /^\d{19}$/;
export const iccidSchema = z.string().regex(ICCID_PATTERN, { message: 'must be exactly 19 decimal digits' });

/** An eSIM named by its id or its ICCID, as internal routes take it in their path. */
export const esimReferenceSchema = z
  .string()
  .regex(new RegExp(`${idPattern(ID_PREFIXES.esim).source}|${ICCID_PATTERN.source}`), { message: 'must be an eSIM id (`esim_...`) or a 19-digit ICCID' });

/**
 * A bundle name: letters, digits, `_`, `-` and `.`, starting with a letter or digit (e.g.
 * `esim_5GB_30D_EU`). Nothing that could change a URL path (`/`, `%`, `?`, `#`, `..`) fits.
 */
export const BUNDLE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const bundleNameSchema = z
  .string()
  .regex(BUNDLE_NAME_PATTERN, { message: 'must be a bundle name such as `esim_5GB_30D_EU` (letters, digits, `_`, `-`, `.`)' });

// The upper bound rejects milliseconds (13 digits), the common mistake with Unix time.
export const unixSeconds = z.number().int().min(0).max(9_999_999_999);

export const countryCodeSchema = z.string().length(2);

export const ACTIVATION_CODE_PATTERN = /^LPA:1\$[^$]+\$[^$]+$/;

export const STANDARD_WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/=]+$/;

export const environmentSchema = z.enum(ENVIRONMENTS);
