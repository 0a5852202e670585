import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { secondsUntil, type RateLimitState } from '../domain/rate-limit-headers.ts';

export const RATE_LIMIT_WINDOW_SECONDS = 60;

export type RateLimitDecision = RateLimitState & { allowed: boolean; retryAfterSeconds: number };

export interface RateLimiter {
  /** Counts one request against `bucket` with a budget of `perMinute`. */
  consume(bucket: string, perMinute: number): Promise<RateLimitDecision>;
}

/**
 * A fixed-window counter per bucket in `gateway.rate_limits`, through rate-limiter-flexible's
 * PostgreSQL store, so every gateway instance shares it. The store borrows a connection from
 * the knex pool for each statement and gives it straight back, so it works on the embedded
 * database's pool of one. The table comes from the gateway's migrations (`tableCreated`), and
 * one limiter exists per distinct budget: all of them share the table, since a row holds only
 * the points used, and the budget is applied when reading it.
 */
export function createRateLimiter(knex: Knex): RateLimiter {
  const limiters = new Map<number, RateLimiterPostgres>();
  const limiterFor = (points: number): RateLimiterPostgres => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterPostgres({
        storeClient: knex,
        storeType: 'knex',
        schemaName: 'gateway',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: 'rl',
        points,
        duration: RATE_LIMIT_WINDOW_SECONDS,
      });
      limiters.set(points, limiter);
    }
    return limiter;
  };

  return {
    async consume(bucket, perMinute) {
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
      return { allowed, limit: perMinute, remaining: res.remainingPoints, resetSeconds, retryAfterSeconds: resetSeconds };
    },
  };
}
