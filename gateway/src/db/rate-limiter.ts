import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { secondsUntil, type RateLimitState } from '../domain/rate-limit-headers.ts';
import type { Config } from '../config.ts';
import { LeasedCounter, redisLeaseStore } from './leased-counter.ts';

export type RateLimitDecision = RateLimitState & { allowed: boolean; retryAfterSeconds: number; windowSeconds: number };

export interface RateLimiter {
  /** Where the counters live (for logs and tests). */
  readonly store: RateLimitStore;
  /** The fixed window every budget is counted over. */
  readonly windowSeconds: number;
  /** Counts one request against `bucket` with a budget of `perMinute`. */
  consume(bucket: string, perMinute: number): Promise<RateLimitDecision>;
  /**
   * Opens the connection to the shared store (nothing for the others); requests counted before it
   * is up are counted by this instance alone, as during an outage.
   */
  connect(): void;
  /** Resolves once the shared store answers (at once for the others); until then each instance counts alone. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where the per-key counters live. `redis`: shared by every gateway instance, which take tokens
 * from it in small leases (`LeasedCounter`): never over the budget, exact on one instance, and a
 * round trip only every few requests. `memory`: this process only, exact; the embedded form (one
 * process by definition). `postgres`: shared through the database, a write per request (the
 * fallback of a distributed form without Redis).
 */
export type RateLimitStore = 'redis' | 'memory' | 'postgres';

/** The store `RATE_LIMIT_STORE=auto` means for this configuration. */
export function rateLimitStoreOf(config: Pick<Config, 'RATE_LIMIT_STORE' | 'REDIS_URL' | 'DATABASE_URL'>): RateLimitStore {
  if (config.RATE_LIMIT_STORE !== 'auto') return config.RATE_LIMIT_STORE;
  if (config.REDIS_URL) return 'redis';
  // Without a database server the gateway is the only process on its (embedded) database.
  return config.DATABASE_URL ? 'postgres' : 'memory';
}

export interface RateLimiterOptions {
  store: RateLimitStore;
  knex: Knex;
  /** With `redis`. */
  redisUrl?: string | undefined;
  /** Keeps one deployment's (or test's) counters apart from another's on a shared Redis. */
  keyPrefix?: string;
  /** The fixed window (record 0255: 60 s). */
  windowSeconds: number;
}

/**
 * A fixed-window counter per bucket. On Redis, the leased counter; in memory and on PostgreSQL,
 * rate-limiter-flexible, one limiter per distinct budget. While Redis is unreachable each
 * instance counts in memory instead, so an outage degrades the limit to per-instance rather than
 * failing requests.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const prefix = options.keyPrefix ?? 'rl';
  let redis: Redis | undefined;
  let leased: LeasedCounter | undefined;
  if (options.store === 'redis') {
    if (!options.redisUrl) throw new Error('the redis rate-limit store needs REDIS_URL');
    // Commands fail fast while Redis is down (the in-memory count answers), rather than queue. The
    // connection opens when the rate-limit store is started (`connect`), or at the first request.
    redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    leased = new LeasedCounter(redisLeaseStore(redis, prefix), options.windowSeconds * 1000);
  }
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (points: number): RateLimiterAbstract => {
    let limiter = limiters.get(points);
    if (!limiter) {
      const common = { keyPrefix: prefix, points, duration: options.windowSeconds };
      switch (options.store) {
        case 'redis': // what counts while Redis cannot be reached
        case 'memory':
          limiter = new RateLimiterMemory(common);
          break;
        case 'postgres':
          // The table comes from the gateway's migrations; the store borrows a connection per
          // statement, so it works on the embedded database's pool of one.
          limiter = new RateLimiterPostgres({
            ...common,
            storeClient: options.knex,
            storeType: 'knex',
            schemaName: 'gateway',
            tableName: 'rate_limits',
            tableCreated: true,
          });
          break;
      }
      limiters.set(points, limiter);
    }
    return limiter;
  };

  return {
    store: options.store,
    windowSeconds: options.windowSeconds,
    async consume(bucket, perMinute) {
      if (leased) {
        try {
          const decision = await leased.consume(bucket, perMinute);
          const resetSeconds = secondsUntil(decision.msLeft);
          return {
            allowed: decision.allowed,
            limit: perMinute,
            remaining: decision.remaining,
            resetSeconds,
            retryAfterSeconds: resetSeconds,
            windowSeconds: options.windowSeconds,
          };
        } catch {
          // Redis is unreachable: this instance counts on its own until it is back.
        }
      }
      let res: RateLimiterRes;
      let allowed = true;
      try {
        res = await limiterFor(perMinute).consume(bucket, 1);
      } catch (rejection) {
        // The library rejects with a RateLimiterRes when the budget is spent, with an Error otherwise.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        res = rejection;
        allowed = false;
      }
      const resetSeconds = secondsUntil(res.msBeforeNext);
      return { allowed, limit: perMinute, remaining: res.remainingPoints, resetSeconds, retryAfterSeconds: resetSeconds, windowSeconds: options.windowSeconds };
    },
    connect() {
      // A first request may have opened it already.
      if (redis?.status === 'wait') redis.connect().catch(() => undefined);
    },
    ready() {
      if (!redis || redis.status === 'ready') return Promise.resolve();
      const connecting = redis;
      return new Promise((resolve) => connecting.once('ready', () => resolve()));
    },
    async close() {
      if (!redis) return;
      // Never opened: nothing to say goodbye to (QUIT would open it first).
      if (redis.status === 'wait') redis.disconnect();
      else await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
