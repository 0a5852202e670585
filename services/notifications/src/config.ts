import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { ConfigError, cursorSecretSchema, loadServiceConfig, serviceConfigSchema, emptyToUndefined } from '@connectivity/platform';
import { z } from 'zod';
import { DEFAULT_RETRY_SCHEDULE_MS } from './domain/retry-policy.ts';
import { SECRET_KEY_BYTES } from './domain/secret-box.ts';
import { parsePreviousKeys, parseSecretKey } from './domain/secret-key.ts';

const msList = (fallback: readonly number[]) =>
  z
    .string()
    .default(fallback.join(','))
    .transform((value, ctx) => {
      const list = value.split(',').map((part) => Number(part.trim()));
      if (list.some((ms) => !Number.isInteger(ms) || ms < 0)) {
        ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of non-negative integers (ms)' });
        return z.NEVER;
      }
      return list;
    });

/** `ip`, `ip:port` or `[ipv6]:port`, as c-ares' setServers takes them. */
function isDnsServer(server: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(server);
  if (bracketed) return isIP(bracketed[1] ?? '') === 6 && Number(bracketed[2] ?? 53) <= 65_535;
  if (isIP(server) !== 0) return true;
  const [host = '', port = '', ...rest] = server.split(':');
  return rest.length === 0 && isIP(host) === 4 && /^\d{1,5}$/.test(port) && Number(port) <= 65_535;
}

const ms = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** A switch spelled plainly; anything else stops the start rather than being read as off. */
const onOff = (fallback: boolean) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
      z.enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', '']).optional(),
    )
    .transform((value) => (value === undefined || value === '' ? fallback : ['1', 'true', 'yes', 'on'].includes(value)));

/** notifications's environment, parsed once at boot (the platform's common variables + its own). */
export const configSchema = serviceConfigSchema(8084)
  .extend({
    /** Signs list cursors; shared by every instance (required with DATABASE_URL). */
    CURSOR_SECRET: cursorSecretSchema,
    /** A delivery fails when no answer comes within this time (record 0253: 15 s). */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).default(15_000),
    /** A delivery fails when the connection (TCP, and TLS for https) is not made within this time. */
    WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1).default(3_000),
    /**
     * A delivery fails when no byte of the answer comes within this time of the connection. Unset,
     * the answer's whole window (WEBHOOK_TIMEOUT_MS): a receiver that works before it answers sends
     * its first byte with its answer, and record 0253 promises success to any 2xx within 15 s.
     */
    WEBHOOK_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
    /** A delivery fails when its host's name is not resolved within this time (our own resolver, not getaddrinfo). */
    WEBHOOK_DNS_TIMEOUT_MS: z.coerce.number().int().min(1).default(2_000),
    /** DNS servers for the tenants' hosts (`ip` or `ip:port`, comma-separated); unset, the system's. */
    WEBHOOK_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const servers = (value ?? '')
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '');
        if (servers.some((server) => !isDnsServer(server))) {
          ctx.addIssue({ code: 'custom', message: 'must be IP addresses, each with an optional port (1.1.1.1, 10.0.0.2:53, [2606:4700::1111]:53)' });
          return z.NEVER;
        }
        return servers;
      }),
    /** Delays before retries 1..n; its length + 1 attempts in all. */
    WEBHOOK_RETRY_SCHEDULE_MS: msList(DEFAULT_RETRY_SCHEDULE_MS),
    /** Each retry delay moves by up to this fraction either way. */
    WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
    /** The longest `Retry-After` that is honoured. */
    WEBHOOK_MAX_RETRY_AFTER_MS: ms(24 * 3_600_000),
    /** An endpoint that has failed every delivery for this long is disabled. */
    WEBHOOK_DISABLE_AFTER_MS: ms(5 * 24 * 3_600_000),
    /** Timeouts in a row after which an endpoint's deliveries wait (its circuit opens). */
    WEBHOOK_CIRCUIT_THRESHOLD: z.coerce.number().int().min(1).default(5),
    /** How long they wait the first time; then one attempt goes, and each reopening doubles the wait. */
    WEBHOOK_CIRCUIT_COOLDOWN_MS: z.coerce.number().int().min(1).default(30_000),
    /** The longest an endpoint's circuit stays open. */
    WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60_000),
    /** How often the delivery worker looks for due work when idle. */
    DELIVERY_POLL_INTERVAL_MS: z.coerce.number().int().min(1).default(1_000),
    /**
     * Attempts one instance makes at once: a pool, each attempt freeing its slot when it is
     * recorded, so a receiver that never answers holds one slot, not a batch.
     */
    DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(64),
    /**
     * Attempts under way to one endpoint at once, over every instance (a receiver is not flooded);
     * as many as the account's, so one endpoint keeps pace with a burst of orders (record 0195).
     */
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce.number().int().min(1).default(16),
    /**
     * Attempts under way for one account and environment at once, over every instance: a tenant
     * whose receivers hang holds this many slots, and the others keep theirs.
     */
    WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: z.coerce.number().int().min(1).default(16),
    /** How long a claimed attempt belongs to its worker; must exceed the timeout. */
    DELIVERY_LEASE_MS: z.coerce.number().int().min(1).default(60_000),
    /** Event consumer: deliveries before a message that cannot be stored is dead-lettered. */
    EVENT_MAX_DELIVER: z.coerce.number().int().min(1).default(5),
    /** Event consumer: the waits (ms, comma-separated) before a message that could not be stored is delivered again. */
    EVENT_REDELIVERY_BACKOFF_MS: msList([1_000, 10_000, 60_000]),
    /**
     * Seals webhook signing secrets at rest (AES-256-GCM): 32 bytes as hex or base64. Required
     * with a database server; embedded, one is generated and kept in DATA_DIR.
     */
    WEBHOOK_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
    /**
     * Keys WEBHOOK_SECRET_KEY replaced (comma-separated): secrets sealed with them are re-sealed
     * with the current key at start, so a rotation loses no endpoint.
     */
    WEBHOOK_SECRET_KEY_PREVIOUS: z.string().optional(),
    /**
     * Test endpoints may reach loopback and private addresses (an integrator's laptop: `pnpm start`
     * turns it on). Off, they obey the live address policy, http still allowed (record 0253).
     */
    WEBHOOK_ALLOW_PRIVATE: onOff(false),
    /** At most this many endpoints (not deleted) per account and environment. */
    WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).default(16),
    /**
     * How long an event is kept, with its deliveries and attempts: listing and replay reach back
     * this far. A delivery still pending keeps its event until it ends.
     */
    EVENT_RETENTION_MS: z.coerce
      .number()
      .int()
      .min(1)
      .default(30 * 86_400_000),
    /** How often a delivery worker prunes what has outlived the retention. */
    RETENTION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1).default(3_600_000),
    /** An open event stream sends a comment line this often (record 0253: 15 s). */
    STREAM_KEEPALIVE_MS: z.coerce.number().int().min(1).default(15_000),
    /** An open event stream reads the log this often even without a notice (a lost notice costs this much). */
    STREAM_POLL_INTERVAL_MS: z.coerce.number().int().min(1).default(1_500),
    /** Event streams one API key may hold open at once, across every instance; one more is 429 `rate_limited`. */
    STREAM_MAX_PER_KEY: z.coerce.number().int().min(1).default(5),
    /**
     * An open stream's lease (what the cap counts) lasts this long unless renewed (a third of it);
     * the streams of an instance that died stop counting after it.
     */
    STREAM_LEASE_MS: z.coerce.number().int().min(300).default(30_000),
    /** What a stream's client is told to wait before reconnecting (the SSE `retry:` field). */
    STREAM_RETRY_MS: z.coerce.number().int().min(0).default(1_000),
    /** The most events one `POST /v1/events/replay` may queue; a window with more is refused, naming a `since` that fits. */
    REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).default(10_000),
    /** Events a replay queues per batch (one transaction each). */
    REPLAY_BATCH_SIZE: z.coerce.number().int().min(1).max(5_000).default(500),
    /** How often the replay worker looks for due replays when idle. */
    REPLAY_POLL_INTERVAL_MS: z.coerce.number().int().min(1).default(1_000),
    /** A replay's batches wait while an endpoint they go to has more than this many deliveries pending. */
    WEBHOOK_MAX_PENDING_PER_ENDPOINT: z.coerce.number().int().min(1).default(10_000),
    /**
     * Pending deliveries one account and environment may hold: past it, an event is stored (listed,
     * streamed, replayable) but its deliveries are not queued, and a replay's batches wait.
     */
    WEBHOOK_MAX_PENDING_PER_ACCOUNT: z.coerce.number().int().min(1).default(10_000),
    /** How long a waiting replay batch waits before it looks again. */
    REPLAY_WAIT_MS: z.coerce.number().int().min(1).default(5_000),
    /** Events pruned per transaction, so pruning never holds long locks. */
    RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).default(500),
    /**
     * How long test events are kept, with their deliveries and attempts (record 0213): pruned by the
     * same sweep, whichever of this and EVENT_RETENTION_MS comes first. Live events keep EVENT_RETENTION_MS.
     */
    TEST_DATA_RETENTION_MS: z.coerce
      .number()
      .int()
      .min(1)
      .default(30 * 86_400_000),
  })
  .refine((config) => config.DELIVERY_LEASE_MS > config.WEBHOOK_DNS_TIMEOUT_MS + config.WEBHOOK_TIMEOUT_MS, {
    path: ['DELIVERY_LEASE_MS'],
    message: 'must be longer than WEBHOOK_DNS_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS, so an attempt under way is never claimed twice',
  });

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadServiceConfig(configSchema, env);
  return {
    ...config,
    WEBHOOK_SECRET_KEY: resolveSecretKey(config),
    WEBHOOK_SECRET_KEY_PREVIOUS: parsePreviousKeys(config.WEBHOOK_SECRET_KEY_PREVIOUS),
  };
}

/** Where embedded mode keeps its generated key, beside the PGlite data it protects. */
export const KEY_FILE = 'webhook-secret.key';
const MEMORY_DATA_DIR = 'memory://';

/**
 * The key webhook signing secrets are sealed with. With a database server it must be given
 * (every instance, and every restart, must open the same rows). Embedded, an unset key is made
 * once and kept in `DATA_DIR/webhook-secret.key` (mode 0600), so the on-disk endpoints stay
 * readable across restarts; an in-memory database gets a key that lives as long as it does.
 */
export function resolveSecretKey(config: { WEBHOOK_SECRET_KEY?: string | undefined; DATABASE_URL?: string | undefined; DATA_DIR: string }): Buffer {
  if (config.WEBHOOK_SECRET_KEY) {
    const key = parseSecretKey(config.WEBHOOK_SECRET_KEY);
    if (!key) throw new ConfigError('WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hex characters or base64.');
    return key;
  }
  if (config.DATABASE_URL) {
    throw new ConfigError(
      'WEBHOOK_SECRET_KEY is required when a database server is configured: webhook signing secrets are encrypted with it, and every instance must read them alike.',
    );
  }
  if (config.DATA_DIR === MEMORY_DATA_DIR) return randomBytes(SECRET_KEY_BYTES);
  return readOrCreateKeyFile(path.resolve(config.DATA_DIR, KEY_FILE));
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    const key = parseSecretKey(readFileSync(file, 'utf8'));
    if (!key) throw new ConfigError(`${file} does not hold a 32-byte key; restore it, or set WEBHOOK_SECRET_KEY.`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(SECRET_KEY_BYTES);
  try {
    // `wx`: a second process starting at the same moment keeps the first one's key, not its own.
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreateKeyFile(file);
    throw err;
  }
}
