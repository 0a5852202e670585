import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectStandardHeaders } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

// Every store: this process's memory (the embedded form), PostgreSQL, and Redis where the machine has it.
const stores = ['memory', 'postgres', ...(process.env.REDIS_URL ? ['redis'] : [])];

describe.each(stores)('rate limit on %s', (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_STORE: store });
  });
  afterAll(async () => {
    await h?.close();
  });

  const get = (key: string, app = h.app) => request(app).get('/v1/esim').set(bearer(key));

  it('counts per key, announces the policy and the remaining budget, and refuses with 429 and Retry-After', async () => {
    const a = await h.account();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await get(a.test);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('"default";q=5;w=60');
      expect(res.headers['ratelimit-limit']).toBe('5');
      remaining.push(res.headers['ratelimit-remaining'] as string);
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
      expect(res.headers.ratelimit).toBe(`"default";r=${remaining.at(-1)};t=${res.headers['ratelimit-reset']}`);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await get(a.test);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-remaining']).toBe('0');

    // Per key: the account's other key has its own budget.
    expect((await get(a.live)).status).toBe(200);
  });

  it('a refused request is not forwarded', async () => {
    const a = await h.account();
    for (let i = 0; i < 5; i += 1) await get(a.test);
    const before = h.upstream.seen.length;
    expect((await get(a.test)).status).toBe(429);
    expect(h.upstream.seen.length).toBe(before);
  });

  // Shared stores are exact across instances: a key gets its budget in total, not per gateway.
  if (store !== 'memory')
    it('the counter is shared by every gateway instance (exactly: no overshoot)', async () => {
      const a = await h.account();
      const second = await h.secondInstance();
      for (let i = 0; i < 3; i += 1) expect((await get(a.test)).status).toBe(200);
      expect((await get(a.test, second)).headers['ratelimit-remaining']).toBe('1');
      expect((await get(a.test, second)).status).toBe(200);
      expect((await get(a.test)).status).toBe(429);
      expect((await get(a.test, second)).status).toBe(429);
      // Concurrent requests over both instances: exactly the budget is answered.
      const b = await h.account();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(b.test, i % 2 === 0 ? h.app : second)));
      expect(answers.filter((res) => res.status === 200)).toHaveLength(5);
    });

  if (store === 'memory')
    it('the memory store counts for its own process only (the embedded form is one)', async () => {
      const a = await h.account();
      const second = await h.secondInstance();
      for (let i = 0; i < 5; i += 1) expect((await get(a.test)).status).toBe(200);
      expect((await get(a.test)).status).toBe(429);
      expect((await get(a.test, second)).status).toBe(200);
    });

  it('an account may have its own budget', async () => {
    const a = await h.account();
    await h.db.knex('gateway.accounts').where({ id: a.accountId }).update({ rate_limit_per_minute: 8 });
    for (let i = 0; i < 8; i += 1) expect((await get(a.test)).status).toBe(200);
    const refused = await get(a.test);
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers['ratelimit-limit']).toBe('8');
  });

  it('the budget comes back after the window', async () => {
    // A one-second window (the production one is 60 s), so the test need not wait a minute.
    const quick = await startHarness({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_STORE: store, RATE_LIMIT_WINDOW_SECONDS: '1' });
    try {
      const a = await quick.account();
      let refused: request.Response | undefined;
      for (let i = 0; i < 20 && refused === undefined; i += 1) {
        const res = await get(a.test, quick.app);
        if (res.status === 429) refused = res;
      }
      expect(refused?.headers['ratelimit-policy']).toBe('"default";q=5;w=1');
      await new Promise((resolve) => setTimeout(resolve, Number(refused?.headers['retry-after']) * 1000 + 200));
      expect((await get(a.test, quick.app)).status).toBe(200);
    } finally {
      await quick.close();
    }
  });

  it('is checked after authentication and version, before the route', async () => {
    const a = await h.account();
    for (let i = 0; i < 5; i += 1) await get(a.test);
    expectError(await request(h.app).get('/v1/esim').set(bearer(a.test)).set('Service-Version', '1999-01-01'), 400, 'unsupported_version', 'Service-Version');
    expectError(await request(h.app).get('/v1/nowhere').set(bearer(a.test)), 429, 'rate_limited');
  });

  it('requests without a valid key are counted per address, and every response carries the headers', async () => {
    const res = await request(h.app).get('/v1/esim');
    expectError(res, 401, 'key_missing');
    expectStandardHeaders(res);
    const spec = await request(h.app).get('/v1/openapi.json');
    expectStandardHeaders(spec);
  });
});
