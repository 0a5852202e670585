import { SERVICE_VERSIONS } from '@connectivity/contracts';
import { ConfigError, loadServiceConfig, serviceConfigSchema, emptyToUndefined } from '@connectivity/platform';
import { z } from 'zod';

const isoDateToUnix = z
  .string()
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 date, e.g. 2027-03-01')
  .transform((value) => Math.floor(Date.parse(value) / 1000));

/**
 * `SERVICE_VERSION_TIMETABLE`: JSON mapping a served version to its deprecation and sunset
 * dates, e.g. `{"2026-09-01":{"deprecation":"2027-03-01","sunset":"2027-09-01","link":"https://..."}}`.
 */
const timetableSchema = z.preprocess(
  (value) => {
    if (value === undefined || value === '') return {};
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  },
  z.record(
    z.enum(SERVICE_VERSIONS),
    z
      .object({ deprecation: isoDateToUnix.optional(), sunset: isoDateToUnix.optional(), link: z.string().url().optional() })
      .strict()
      .transform((row) => ({ deprecatedAt: row.deprecation, sunsetAt: row.sunset, link: row.link })),
  ),
);

/**
 * `TRUST_PROXY`: which proxies in front of the gateway may name the client's address in
 * X-Forwarded-For, as express's `trust proxy` takes it: a number of hops (`1` behind one
 * ingress), or addresses and subnets (`10.0.0.0/8,loopback`). Unset or `0`: none, the socket's
 * address is the client's. `true` (trust any sender) is refused: anyone could then choose the
 * address they are counted under.
 */
const trustProxySchema = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .optional()
    .transform((value, ctx): number | string[] => {
      if (value === undefined || value.trim() === '' || value.trim() === '0' || value.trim().toLowerCase() === 'false') return 0;
      if (/^\d+$/.test(value.trim())) return Number(value.trim());
      const entries = value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      const named = ['loopback', 'linklocal', 'uniquelocal'];
      const bad = entries.find((entry) => !named.includes(entry) && !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `must be a number of hops or a list of addresses, subnets, loopback, linklocal or uniquelocal; not ${bad}` });
        return z.NEVER;
      }
      return entries;
    }),
);

/** The gateway's environment: the common variables, where each service lives, limits, admin API. */
export const configSchema = serviceConfigSchema(8080).extend({
  /** Where catalogue listens. */
  CATALOGUE_URL: z.string().url().default('http://127.0.0.1:8081'),
  /** Where inventory listens. */
  INVENTORY_URL: z.string().url().default('http://127.0.0.1:8082'),
  /** Where sandbox-simulator listens. */
  SANDBOX_SIMULATOR_URL: z.string().url().default('http://127.0.0.1:8083'),
  /** Where notifications listens. */
  NOTIFICATIONS_URL: z.string().url().default('http://127.0.0.1:8084'),
  /** How long the gateway waits for a service before answering with an error. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Proxies in front of the gateway whose `X-Forwarded-For` names the client: a hop count (`1` behind one ingress) or addresses and subnets (`10.0.0.0/8,loopback`); unset, the socket's address is the client's. */
  TRUST_PROXY: trustProxySchema,
  /** Requests per minute per API key; an account may have its own value (set by the operator). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** The window of the limit (record 0255: 60 s); shorter only in tests. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /**
   * Where the counters live: `redis` (shared by every instance; needs REDIS_URL), `memory` (one
   * process: the embedded form), `postgres` (shared, a write per request). `auto`: redis with
   * REDIS_URL, else postgres with DATABASE_URL, else memory.
   */
  RATE_LIMIT_STORE: z.enum(['auto', 'redis', 'memory', 'postgres']).default('auto'),
  /** Callbacks per minute a supplier's address may send to `POST /hooks/<vendor>` (record 0150). */
  SUPPLIER_HOOK_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** The largest callback body taken, in bytes (vendors send a few kilobytes). */
  SUPPLIER_HOOK_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(262_144),
  /** Redis for the shared rate limit (e.g. `redis://127.0.0.1:6379`). */
  REDIS_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  /** Prefix of the gateway's Redis keys, so deployments sharing a Redis keep apart. */
  REDIS_KEY_PREFIX: z.string().min(1).default('connectivity:rl'),
  /** A cached API key is re-read in the background after this; change notices drop it at once. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(100).default(10_000),
  /** How often the last use of keys is written (one statement for all keys used since). */
  KEY_USE_FLUSH_MS: z.coerce.number().int().min(100).default(30_000),
  /** How often the request log's buffer is written: a request appears in GET /v1/request_logs within about this. */
  REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(10).default(1_000),
  /** Requests kept per account and environment in the request log (the newest). */
  REQUEST_LOG_MAX_PER_ACCOUNT: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Requests older than this leave the request log. */
  REQUEST_LOG_RETENTION_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(24),
  /** Slow clients (record 0201): the request line and headers must arrive within this; past it, 408 `request_timeout` and the connection closed. */
  REQUEST_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Slow clients (record 0201): the whole body must arrive within this of the start of its read; past it, 408 `request_timeout` and the connection closed. */
  REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Bodies of one API key read at once in an instance (record 0201); past that, 429 `rate_limited`. */
  BODY_READS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(32),
  /** How long a stored idempotent response is replayed (record 0255: 24 hours). */
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().positive().default(86_400),
  /** The deprecation timetable as JSON, e.g. `{"2026-09-01":{"deprecation":"2027-03-01","sunset":"2027-09-01"}}`: requests on a version with a date get `Deprecation`, `Sunset` and `Link`. */
  SERVICE_VERSION_TIMETABLE: timetableSchema,
  /** The signing secret of list cursors (GET /v1/api_keys); required with a database server. */
  CURSOR_SECRET: z.preprocess(emptyToUndefined, z.string().min(32).optional()),
  /** The operator admin API: its own listener, loopback by default, bearer-token protected. */
  ADMIN_HOST: z.string().default('127.0.0.1'),
  /** The admin listener's port (`pnpm cli` talks to it). */
  ADMIN_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  /** Generated at start when unset, and written with the admin URL to DATA_DIR/admin.json. */
  ADMIN_TOKEN: z.preprocess(emptyToUndefined, z.string().min(24).optional()),
  /**
   * The admin listener's credential on its calls to inventory and catalogue, apart from the public
   * forward's INTERNAL_TOKEN: only it reaches the operator's routes (balances, verification,
   * releases). Unset: INTERNAL_TOKEN; required in production (record 0222).
   */
  ADMIN_INTERNAL_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16).optional()),
  /** Keys of the embedded dev account (`pnpm start`); generated when unset. */
  DEV_TEST_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^sk_test_[0-9A-Za-z]{24,128}$/)
      .optional(),
  ),
  /** The live key of the embedded dev account (`sk_live_…`); generated when unset. */
  DEV_LIVE_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^sk_live_[0-9A-Za-z]{24,128}$/)
      .optional(),
  ),
});

export type Config = ReturnType<typeof loadConfig>;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env) => {
  const config = loadServiceConfig(configSchema, env);
  if (config.NODE_ENV === 'production' && (!config.ADMIN_INTERNAL_TOKEN || config.ADMIN_INTERNAL_TOKEN === config.INTERNAL_TOKEN)) {
    throw new ConfigError('ADMIN_INTERNAL_TOKEN is required in production, apart from INTERNAL_TOKEN: the public forward must not reach the operator routes.');
  }
  return config;
};
