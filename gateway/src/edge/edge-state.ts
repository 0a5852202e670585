import type { ServiceRuntime } from '@connectivity/platform';
import type { Config } from '../config.ts';
import { keyReservations, type KeyReservations } from '../db/idempotency-repository.ts';
import { KeyCache, keyChangeNotifier, type KeyChangeNotice } from '../db/key-cache.ts';
import { KeyUse } from '../db/key-use.ts';
import { RequestLog } from '../db/request-log-buffer.ts';
import { OpenStreams } from '../domain/open-streams.ts';
import { SpentBudgets } from '../domain/spent-budgets.ts';
import { createRateLimiter, type RateLimiter, type RateLimitStore } from '../db/rate-limiter.ts';

/**
 * What the edge keeps in process so a request needs no database round trip in steady state: the
 * key cache (with the bus notices that keep every instance's copy right), the key-use
 * bookkeeping, the request log's buffer, the rate limiter, and the batcher of idempotency-key
 * reservations.
 */
export interface EdgeState {
  keys: KeyCache;
  /** The event streams passed on now, closed when their key changes. */
  streams: OpenStreams;
  keyUse: KeyUse;
  /** The per-account request log's buffer, written in batches. */
  requestLog: RequestLog;
  rateLimiter: RateLimiter;
  /** Address buckets seen spent: refused from memory until their window ends. */
  spentBudgets: SpentBudgets;
  /** Idempotency keys noted against the request they were first used for, group-committed. */
  reservations: KeyReservations;
  /** Announces a key or account change to every instance (this one first). */
  keysChanged: (notice: KeyChangeNotice) => void;
  stop(): Promise<void>;
}

/** The store `RATE_LIMIT_STORE=auto` means for this configuration. */
export function rateLimitStoreOf(config: Pick<Config, 'RATE_LIMIT_STORE' | 'REDIS_URL' | 'DATABASE_URL'>): RateLimitStore {
  if (config.RATE_LIMIT_STORE !== 'auto') return config.RATE_LIMIT_STORE;
  if (config.REDIS_URL) return 'redis';
  // Without a database server the gateway is the only process on its (embedded) database.
  return config.DATABASE_URL ? 'postgres' : 'memory';
}

export function createEdgeState(runtime: ServiceRuntime, config: Config): EdgeState {
  const streams = new OpenStreams();
  const keys = new KeyCache({
    knex: runtime.db.knex,
    bus: runtime.bus,
    logger: runtime.logger,
    ttlMs: config.KEY_CACHE_TTL_MS,
    onChange: (notice) => streams.close(notice.keyIds ?? []),
  });
  const listening = keys.start().catch((error: unknown) => {
    runtime.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'listening for key changes failed; cached keys expire by age only');
  });
  const keyUse = new KeyUse({ knex: runtime.db.knex, logger: runtime.logger, flushMs: config.KEY_USE_FLUSH_MS });
  const requestLog = new RequestLog({
    knex: runtime.db.knex,
    logger: runtime.logger,
    flushMs: config.REQUEST_LOG_FLUSH_MS,
    keepPerScope: config.REQUEST_LOG_MAX_PER_ACCOUNT,
    retentionMs: config.REQUEST_LOG_RETENTION_HOURS * 3_600_000,
  });
  const rateLimiter = createRateLimiter({
    store: rateLimitStoreOf(config),
    knex: runtime.db.knex,
    redisUrl: config.REDIS_URL,
    keyPrefix: config.REDIS_KEY_PREFIX,
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
  });
  return {
    keys,
    streams,
    keyUse,
    requestLog,
    rateLimiter,
    spentBudgets: new SpentBudgets(),
    reservations: keyReservations(runtime.db.knex),
    keysChanged: keyChangeNotifier(runtime.bus, keys, runtime.logger),
    async stop() {
      await listening;
      await keys.stop();
      await keyUse.stop();
      await requestLog.stop();
      await rateLimiter.close();
    },
  };
}
