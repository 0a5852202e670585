import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeasedCounter, MAX_LEASE, redisLeaseStore, type LeaseStore } from '../src/db/leased-counter.ts';
import { createRateLimiter } from '../src/db/rate-limiter.ts';
import { createTestDatabase } from '@connectivity/platform/testing';

// The leased counter on the real Redis: the PostgreSQL + NATS pass sets REDIS_URL (CI runs one);
// the embedded pass has no Redis by design, and there the gateway counts in memory (tested in
// rate-limit.test.ts), so these are registered only where there is a Redis to lease from.
const REDIS_URL = process.env.REDIS_URL;

if (REDIS_URL)
  describe('rate limit leases from Redis', () => {
    let redis: Redis;
    let leases = 0;
    let store: LeaseStore;
    beforeAll(() => {
      redis = new Redis(REDIS_URL ?? '');
      const real = redisLeaseStore(redis, `test:${randomBytes(6).toString('hex')}`);
      // Counts the round trips; every one still goes to Redis.
      store = (bucket, tokens, windowMs) => {
        leases += 1;
        return real(bucket, tokens, windowMs);
      };
    });
    afterAll(async () => {
      await redis?.quit();
    });
    const bucket = () => `key:${randomBytes(6).toString('hex')}`;

    it('is exact on one instance, with a round trip only every few requests', async () => {
      const counter = new LeasedCounter(store, 60_000);
      const key = bucket();
      const before = leases;
      const remaining: number[] = [];
      for (let i = 0; i < 120; i += 1) {
        const decision = await counter.consume(key, 120);
        expect(decision.allowed).toBe(true);
        expect(decision.msLeft).toBeGreaterThan(58_000);
        remaining.push(decision.remaining);
      }
      expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
      expect((await counter.consume(key, 120)).allowed).toBe(false);
      // A spent bucket is refused from memory: no more round trips this window.
      const spent = leases;
      for (let i = 0; i < 10; i += 1) expect((await counter.consume(key, 120)).allowed).toBe(false);
      expect(leases).toBe(spent);
      // 15 tokens at first, one at a time near the end: far fewer round trips than requests.
      expect(spent - before).toBeLessThan(40);
      expect(spent - before).toBeGreaterThan(120 / MAX_LEASE);
    });

    it('concurrent requests on one instance share a lease and get exactly the budget', async () => {
      const counter = new LeasedCounter(store, 60_000);
      const key = bucket();
      const answers = await Promise.all(Array.from({ length: 200 }, () => counter.consume(key, 120)));
      expect(answers.filter((answer) => answer.allowed)).toHaveLength(120);
    });

    it('never grants more than the budget over several instances, and refuses early by at most what the others hold', async () => {
      for (let round = 0; round < 5; round += 1) {
        const instances = Array.from({ length: 3 }, () => new LeasedCounter(store, 60_000));
        const key = bucket();
        const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => (instances[i % 3] as LeasedCounter).consume(key, 120)));
        const allowed = answers.filter((answer) => answer.allowed).length;
        expect(allowed).toBeLessThanOrEqual(120);
        expect(allowed).toBeGreaterThanOrEqual(120 - 2 * MAX_LEASE);
      }
    });

    it('a small budget is counted one token at a time, so it is exact over instances too', async () => {
      const a = new LeasedCounter(store, 60_000);
      const b = new LeasedCounter(store, 60_000);
      const key = bucket();
      expect((await a.consume(key, 5)).remaining).toBe(4);
      expect((await b.consume(key, 5)).remaining).toBe(3);
      expect((await a.consume(key, 5)).remaining).toBe(2);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).consume(key, 5)));
      expect(answers.filter((answer) => answer.allowed)).toHaveLength(2);
    });

    it('the budget comes back when the window ends', async () => {
      const counter = new LeasedCounter(store, 1_000);
      const key = bucket();
      for (let i = 0; i < 3; i += 1) expect((await counter.consume(key, 3)).allowed).toBe(true);
      const refused = await counter.consume(key, 3);
      expect(refused.allowed).toBe(false);
      expect(refused.msLeft).toBeLessThanOrEqual(1_000);
      await new Promise((resolve) => setTimeout(resolve, refused.msLeft + 100));
      expect((await counter.consume(key, 3)).allowed).toBe(true);
    });
  });

describe('rate limit while Redis cannot be reached', () => {
  it('each instance counts in memory, exactly, rather than failing requests', async () => {
    const db = await createTestDatabase();
    // Nothing listens on port 1.
    const limiter = createRateLimiter({ store: 'redis', knex: db.knex, redisUrl: 'redis://127.0.0.1:1', windowSeconds: 60 });
    try {
      const decisions = [];
      for (let i = 0; i < 4; i += 1) decisions.push(await limiter.consume('key:outage', 3));
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
      expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0]);
    } finally {
      await limiter.close();
      await db.close();
    }
  });
});
