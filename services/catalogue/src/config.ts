import { ConfigError, cursorSecretSchema, loadServiceConfig, resolveCursorSecret, serviceConfigSchema, emptyToUndefined } from '@connectivity/platform';
import { SUPPLIER_VENDORS } from '@connectivity/contracts';
import { z } from 'zod';
import { AIRALO_DEFAULT_URL } from './clients/suppliers/airalo/adapter.ts';
import { ESIMGO_DEFAULT_URL } from './clients/suppliers/esim-go/adapter.ts';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
const secret = z.preprocess(emptyToUndefined, z.string().min(1).optional());
const url = (fallback: string) => z.preprocess(emptyToUndefined, z.string().url().default(fallback));

/** catalogue's environment, parsed once at boot (the platform's common variables + its own). */
export const configSchema = serviceConfigSchema(8081).extend({
  /** Signs list cursors; shared by every instance (see the platform's pagination). */
  CURSOR_SECRET: cursorSecretSchema,
  /** The vendor live buys from; unset: live catalogue and orders answer 503 as before. */
  LIVE_SUPPLIER: z.preprocess(emptyToUndefined, z.enum(SUPPLIER_VENDORS).optional()),
  /** Airalo's Partner API v2. */
  AIRALO_API_URL: url(AIRALO_DEFAULT_URL),
  /** Airalo's OAuth2 client id (client credentials). */
  AIRALO_CLIENT_ID: secret,
  /** Also verifies Airalo's webhook signatures (HMAC-SHA512 keyed with it). */
  AIRALO_CLIENT_SECRET: secret,
  /** eSIM Go's API v2.4. */
  ESIMGO_API_URL: url(ESIMGO_DEFAULT_URL),
  /** Also verifies eSIM Go's callback signatures (HMAC-SHA256 keyed with it). */
  ESIMGO_API_KEY: secret,
  /** How long one call to the vendor may take before it counts as timed out (an order then stays in doubt, record 0159). */
  SUPPLIER_TIMEOUT_MS: positiveInt(5_000),
  /** Retries of the vendor calls that are safe to repeat (reads), with backoff. */
  SUPPLIER_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /** Vendor failures in a row (never our own limiter's refusals) that open the circuit breaker. */
  SUPPLIER_BREAKER_THRESHOLD: positiveInt(5),
  /** How long the breaker stays open before one call tries the vendor again. */
  SUPPLIER_BREAKER_COOLDOWN_MS: positiveInt(30_000),
  /** Our margin over the supplier's cost, in percent. */
  SUPPLIER_MARGIN_PERCENT: z.coerce.number().min(0).max(1_000).default(30),
  /** The live catalogue and its prices are read from the vendor at most this often (0: every time). */
  SUPPLIER_CATALOGUE_TTL_MS: z.coerce.number().int().min(0).default(300_000),
  /** While the vendor cannot be read, a copy up to this old is still sold from; older: 503. */
  SUPPLIER_CATALOGUE_MAX_STALE_MS: z.coerce.number().int().min(0).default(1_800_000),
  /**
   * How long the vendor may take to make an order whose answer we do not have (its worst case:
   * eSIM Go's "allow up to 10 minutes"): no second purchase for that order before (record 0159).
   */
  SUPPLIER_ORDER_SETTLE_MS: positiveInt(600_000),
  /** Calls one account may have waiting for room under a vendor rate limit; more fail at once (record 0162). */
  SUPPLIER_MAX_QUEUED_PER_ACCOUNT: positiveInt(20),
  /** The part of each of the vendor's rate limits one account may use, in percent: the rest stays for the others (record 0162). */
  SUPPLIER_ACCOUNT_SHARE_PERCENT: z.coerce.number().int().min(1).max(100).default(50),
  /** Where Airalo sends an async order's webhook (our public `/hooks/airalo`); unset: every order is placed synchronously. */
  AIRALO_WEBHOOK_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  /** Orders of at least this many eSIMs go through Airalo's orders-async (record 0159). */
  AIRALO_ASYNC_FROM_QUANTITY: positiveInt(5),
  /** How long Airalo caches a usage answer (its usage page: 20 minutes; 60 in its sandbox): no eSIM is asked again sooner (record 0234). */
  AIRALO_USAGE_CACHE_MS: z.coerce.number().int().min(0).default(1_200_000),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadServiceConfig(configSchema, env);
  if (config.LIVE_SUPPLIER === 'airalo' && (!config.AIRALO_CLIENT_ID || !config.AIRALO_CLIENT_SECRET)) {
    throw new ConfigError('AIRALO_CLIENT_ID and AIRALO_CLIENT_SECRET are required with LIVE_SUPPLIER=airalo.');
  }
  if (config.LIVE_SUPPLIER === 'esim-go' && !config.ESIMGO_API_KEY) throw new ConfigError('ESIMGO_API_KEY is required with LIVE_SUPPLIER=esim-go.');
  return { ...config, CURSOR_SECRET: resolveCursorSecret(config) };
}
