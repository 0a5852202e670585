import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKeyById } from '../src/index.ts';
import { expectError, expectStandardHeaders } from './support/common-route-tests.ts';
import { bearer, idem, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

describe('the Authentication failure table', () => {
  it('no Authorization header: 401 key_missing', async () => {
    expectError(await request(h.app).get('/v1/esim'), 401, 'key_missing');
  });

  it('an Authorization header that is not "Bearer <token>": 401 key_missing', async () => {
    const a = await h.account();
    expectError(await request(h.app).get('/v1/esim').set('Authorization', `Basic ${a.test}`), 401, 'key_missing');
    expectError(await request(h.app).get('/v1/esim').set('Authorization', 'Bearer'), 401, 'key_missing');
  });

  it('a key that is not recognised: 401 key_invalid', async () => {
    expectError(await request(h.app).get('/v1/esim').set(bearer('sk_test_0000000000000000000000000000000')), 401, 'key_invalid');
    expectError(await request(h.app).get('/v1/esim').set(bearer('not-a-key')), 401, 'key_invalid');
  });

  it('a key one character off a real one: 401 key_invalid', async () => {
    const a = await h.account();
    const tampered = a.test.slice(0, -1) + (a.test.endsWith('A') ? 'B' : 'A');
    expectError(await request(h.app).get('/v1/esim').set(bearer(tampered)), 401, 'key_invalid');
  });

  it('a revoked key: 401 key_revoked, while the account’s other key still works', async () => {
    const a = await h.account();
    await revokeKeyById(h.db.knex, a.testKeyId);
    expectError(await request(h.app).get('/v1/esim').set(bearer(a.test)), 401, 'key_revoked');
    expect((await request(h.app).get('/v1/esim').set(bearer(a.live))).status).toBe(200);
  });

  it('a key lacking the scope: 403 key_out_of_scope', async () => {
    const a = await h.account();
    await h.db
      .knex('gateway.api_keys')
      .where({ id: a.testKeyId })
      .update({ scopes: ['catalogue:read'] });
    expectError(await request(h.app).get('/v1/esim').set(bearer(a.test)), 403, 'key_out_of_scope');
    expect((await request(h.app).get('/v1/esim/bundles').set(bearer(a.test))).status).toBe(200);
  });

  it('a live key on /v1/test/*: 403 live_key_test_resource, before the service is called', async () => {
    const a = await h.account();
    const before = h.upstream.seen.length;
    const usage = await request(h.app).post('/v1/test/usage').set(bearer(a.live)).set('Idempotency-Key', idem()).send({ esim: 'esim_x', bytes: 1 });
    expectError(usage, 403, 'live_key_test_resource');
    const error = await request(h.app).post('/v1/test/error').set(bearer(a.live)).set('Idempotency-Key', idem()).send({ code: 'already_exists' });
    expectError(error, 403, 'live_key_test_resource');
    expect(h.upstream.seen.length).toBe(before);
  });

  it('the key’s environment travels to the service, which enforces the test/live boundary', async () => {
    const a = await h.account();
    await request(h.app).get('/v1/esim/esim_live_one').set(bearer(a.test)).expect(200);
    await request(h.app).get('/v1/esim/esim_live_one').set(bearer(a.live)).expect(200);
    const seen = h.upstream.seen.filter((r) => r.url === '/v1/esim/esim_live_one');
    expect(seen.map((r) => r.headers['x-environment'])).toEqual(['test', 'live']);
    expect(seen.map((r) => r.headers['x-key-id'])).toEqual([a.testKeyId, a.liveKeyId]);
  });
});

describe('routes cannot be probed without a key', () => {
  it('an unknown path without a key is 401; with a key 404 no_such_route', async () => {
    expectError(await request(h.app).get('/v1/does-not-exist'), 401, 'key_missing');
    expectError(await request(h.app).get('/elsewhere'), 401, 'key_missing');
    const a = await h.account();
    expectError(await request(h.app).get('/v1/does-not-exist').set(bearer(a.test)), 404, 'no_such_route');
    expectError(await request(h.app).get('/elsewhere').set(bearer(a.test)), 404, 'no_such_route');
  });

  it('a known path with a method it does not have is 404 no_such_route', async () => {
    const a = await h.account();
    expectError(await request(h.app).put('/v1/esim').set(bearer(a.test)).send({}), 404, 'no_such_route');
    expectError(await request(h.app).delete('/v1/version').set(bearer(a.test)), 404, 'no_such_route');
  });

  it('GET /v1/openapi.json and /docs need no key', async () => {
    const spec = await request(h.app).get('/v1/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.body.paths as object)).toContain('/v1/esim');
    expectStandardHeaders(spec);
    const docs = await request(h.app).get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect(docs.text).toContain('/v1/openapi.json');
    // The page's script is served by the gateway itself: the docs work with no network.
    const script = /<script src="([^"]+)"/.exec(docs.text)?.[1];
    expect(script).toBe('/docs/assets/standalone.js');
    expect(docs.text).not.toMatch(/cdn\.jsdelivr|https:\/\//);
    const asset = await request(h.app).get(script ?? '');
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.text || String(asset.body as Buffer)).toContain('createApiReference');
  });
});

describe('keys and secrets', () => {
  it('stores only a SHA-256 hash of a secret, never the secret', async () => {
    const a = await h.account();
    const rows = await h.db.knex('gateway.api_keys').where({ account_id: a.accountId });
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(a.test);
    expect(dump).not.toContain(a.live);
    expect(rows.every((row: { secret_hash: Buffer }) => row.secret_hash.length === 32)).toBe(true);
  });

  it('issues high-entropy keys of the right environment', async () => {
    const a = await h.account();
    const b = await h.account();
    expect(a.test).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(a.live).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(new Set([a.test, a.live, b.test, b.live]).size).toBe(4);
  });
});
