import { ERROR_CODES, EVENT_TYPES } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateKey } from '../src/index.ts';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

async function readAll(path: string, key: string, limit: number) {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const res = await request(h.app)
      .get(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      .set(bearer(key));
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.next_cursor === null).toBe(!res.body.has_more);
    items.push(...(res.body.data as Record<string, unknown>[]));
    cursor = res.body.next_cursor as string | null;
  } while (cursor);
  return items;
}

describe('catalogues', () => {
  it('GET /v1/event_types lists every event type in catalogue order, paged', async () => {
    const a = await h.account();
    const items = await readAll('/v1/event_types', a.test, 4);
    expect(items.map((item) => item.type)).toEqual([...EVENT_TYPES]);
    expect(items[0]).toMatchObject({ object: 'event_type', description: expect.any(String), data_schema: expect.any(Object) });
  });

  it('GET /v1/error_codes lists the 29 codes with type and status', async () => {
    const a = await h.account();
    const items = await readAll('/v1/error_codes', a.test, 10);
    expect(items.map((item) => item.code)).toEqual([...ERROR_CODES]);
    expect(items).toHaveLength(29);
    expect(items.find((item) => item.code === 'rate_limited')).toMatchObject({ object: 'error_code', type: 'rate_limit', status: 429 });
  });

  it('GET /v1/errors/{code} describes one code (where every error link points); an unknown one is 404', async () => {
    const a = await h.account();
    const res = await request(h.app).get('/v1/errors/key_revoked').set(bearer(a.test));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'error_code', code: 'key_revoked', type: 'authentication', status: 401 });
    expectError(await request(h.app).get('/v1/errors/nope').set(bearer(a.test)), 404, 'resource_not_found', 'code');
  });

  it('a tampered or foreign cursor is 400 invalid_parameter, param cursor', async () => {
    const a = await h.account();
    const b = await h.account();
    const first = await request(h.app).get('/v1/error_codes?limit=2').set(bearer(a.test));
    const cursor = first.body.next_cursor as string;
    expectError(await request(h.app).get(`/v1/error_codes?cursor=${cursor}x`).set(bearer(a.test)), 400, 'invalid_parameter', 'cursor');
    expectError(await request(h.app).get(`/v1/error_codes?cursor=${cursor}`).set(bearer(b.test)), 400, 'invalid_parameter', 'cursor');
    expectError(await request(h.app).get(`/v1/error_codes?cursor=${cursor}`).set(bearer(a.live)), 400, 'invalid_parameter', 'cursor');
    expect((await request(h.app).get(`/v1/error_codes?cursor=${cursor}`).set(bearer(a.test))).status).toBe(200);
  });
});

describe('GET /v1/api_keys', () => {
  it('lists the keys of the key’s environment, never a secret, paged in creation order', async () => {
    const a = await h.account();
    const rotated = await rotateKey(h.db.knex, a.accountId, 'test');
    const items = await readAll('/v1/api_keys', rotated.secret, 1);
    expect(items.map((item) => item.id)).toEqual([a.testKeyId, rotated.key.id]);
    expect(items.map((item) => item.status)).toEqual(['revoked', 'active']);
    expect(items[0]).toMatchObject({ object: 'api_key', environment: 'test', prefix: a.test.slice(0, 12), last4: a.test.slice(-4) });
    expect(items[0]?.revoked_at).toEqual(expect.any(Number));
    const dump = JSON.stringify(items);
    expect(dump).not.toContain(a.test);
    expect(dump).not.toContain(rotated.secret);
    expect(dump).not.toMatch(/secret|hash/);

    const live = await readAll('/v1/api_keys', a.live, 20);
    expect(live.map((item) => item.id)).toEqual([a.liveKeyId]);
  });
});
