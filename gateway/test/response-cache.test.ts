import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(async () => {
  await h?.close();
});

const reached = (path: string) => h.upstream.seen.filter((seen) => seen.url === path).length;
const list = (key: string, path = '/v1/esim/bundles?countries=FR') => request(h.app).get(path).set(bearer(key));

describe('reads their service marks cacheable', () => {
  it('are answered from the edge for their max-age, per key, with every check still made', async () => {
    const a = await h.account();
    const path = '/v1/esim/bundles?countries=FR&limit=7';
    const first = await list(a.test, path);
    expect(first.status).toBe(200);
    const second = await list(a.test, path);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.age).toBeDefined();
    expect(reached(path)).toBe(1);
    // Still counted against the key, still with fresh Request-Ids.
    expect(Number(second.headers['ratelimit-remaining'])).toBe(Number(first.headers['ratelimit-remaining']) - 1);
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);
    // Another key (even of another account) has its own entry; a client's no-cache goes to the service.
    const b = await h.account();
    await list(b.test, path);
    expect(reached(path)).toBe(2);
    await request(h.app).get(path).set(bearer(a.test)).set('Cache-Control', 'no-cache');
    expect(reached(path)).toBe(3);
    // A revoked key is refused before any cached answer.
    await h.db.knex('gateway.api_keys').where({ id: a.testKeyId }).update({ status: 'revoked' });
    h.edge.keys.forget({ keyIds: [a.testKeyId] });
    expect((await list(a.test, path)).status).toBe(401);
  });

  it('answers not marked cacheable (a live key here) always reach the service', async () => {
    const a = await h.account();
    const path = '/v1/esim/bundles?countries=GB&limit=3';
    await list(a.live, path);
    await list(a.live, path);
    expect(reached(path)).toBe(2);
    const esim = '/v1/esim?limit=4';
    await list(a.test, esim);
    await list(a.test, esim);
    expect(reached(esim)).toBe(2);
  });

  it('an answer its service did not mark cacheable (eSIMs, with their activation codes) goes out as no-store; a cacheable one keeps its own', async () => {
    const a = await h.account();
    const esims = await list(a.test, '/v1/esim?limit=5');
    expect(esims.headers['cache-control']).toBe('no-store');
    expect(esims.headers['x-content-type-options']).toBe('nosniff');
    const bundles = await list(a.test, '/v1/esim/bundles?countries=DE');
    expect(bundles.headers['cache-control']).toMatch(/max-age=\d+/);
    const refused = await request(h.app).get('/v1/esim');
    expect(refused.headers['cache-control']).toBe('no-store');
  });
});
