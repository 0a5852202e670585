import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

/**
 * What a request without a valid key may cost: its address budget is checked before any key
 * lookup, a token that cannot be a key is never looked up, and a budget known to be spent is
 * refused from memory. Clients are told apart by X-Forwarded-For (TRUST_PROXY=loopback: the
 * test client is the proxy), so each test has addresses of its own.
 */
const stores = ['memory', 'postgres', ...(process.env.REDIS_URL ? ['redis'] : [])];

let address = 0;
/** A client address no other test used. */
const nextClient = () => `203.0.113.${(address += 1)}`;
const randomKey = () => `sk_test_${randomBytes(24).toString('hex')}`;

/** Counts the queries the gateway sends to its database while `fn` runs. */
async function queriesDuring(h: Harness, fn: () => Promise<void>): Promise<number> {
  let queries = 0;
  const count = () => {
    queries += 1;
  };
  h.db.knex.on('query', count);
  try {
    await fn();
  } finally {
    h.db.knex.off('query', count);
  }
  return queries;
}

describe.each(stores)('the anonymous path (rate-limit store %s)', (store) => {
  let h: Harness;
  const from = (client: string) => ({ 'X-Forwarded-For': client });
  beforeAll(async () => {
    h = await startHarness({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_STORE: store, TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('once an address has spent its budget, requests without a valid key make no query at all', async () => {
    const client = nextClient();
    for (let i = 0; i < 5; i += 1) expectError(await request(h.app).get('/v1/esim').set(from(client)).set(bearer(randomKey())), 401, 'key_invalid');
    expectError(await request(h.app).get('/v1/esim').set(from(client)).set(bearer(randomKey())), 429, 'rate_limited');

    const queries = await queriesDuring(h, async () => {
      for (let i = 0; i < 20; i += 1) {
        const refused = await request(h.app).get('/v1/esim').set(from(client)).set(bearer(randomKey()));
        expectError(refused, 429, 'rate_limited');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(refused.headers['ratelimit-remaining']).toBe('0');
      }
      expectError(await request(h.app).get('/v1/esim').set(from(client)), 429, 'rate_limited');
      expectError(await request(h.app).get('/v1/esim').set(from(client)).set(bearer('not-a-key')), 429, 'rate_limited');
    });
    expect(queries).toBe(0);
  });

  it('another client address keeps its own budget', async () => {
    const spender = nextClient();
    for (let i = 0; i < 6; i += 1) await request(h.app).get('/v1/esim').set(from(spender)).set(bearer(randomKey()));
    expectError(await request(h.app).get('/v1/esim').set(from(spender)), 429, 'rate_limited');
    expectError(await request(h.app).get('/v1/esim').set(from(nextClient())), 401, 'key_missing');
  });

  it('a key already in memory still works from a spent address; a key not in memory is refused before its lookup', async () => {
    const client = nextClient();
    const known = await h.account();
    const unknown = await h.account();
    expect((await request(h.app).get('/v1/esim').set(from(client)).set(bearer(known.test))).status).not.toBe(401);
    for (let i = 0; i < 6; i += 1) await request(h.app).get('/v1/esim').set(from(client)).set(bearer(randomKey()));
    expect((await request(h.app).get('/v1/esim').set(from(client)).set(bearer(known.test))).status).not.toBe(429);
    expectError(await request(h.app).get('/v1/esim').set(from(client)).set(bearer(unknown.test)), 429, 'rate_limited');
  });

  it('the reference and the spec have a budget of their own: a spent API budget leaves /docs readable', async () => {
    const client = nextClient();
    for (let i = 0; i < 6; i += 1) await request(h.app).get('/v1/esim').set(from(client));
    expectError(await request(h.app).get('/v1/esim').set(from(client)), 429, 'rate_limited');
    expect((await request(h.app).get('/v1/openapi.json').set(from(client))).status).toBe(200);
    for (let i = 0; i < 4; i += 1) await request(h.app).get('/v1/openapi.json').set(from(client));
    expectError(await request(h.app).get('/docs').set(from(client)), 429, 'rate_limited');
  });
});

describe('tokens that cannot be keys, and the proxy setting', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_STORE: 'memory' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a token that does not look like a key is refused without a lookup; one that does is looked up', async () => {
    for (const token of ['not-a-key', 'sk_test_short', `sk_prod_${'a'.repeat(32)}`, `sk_test_${'a'.repeat(31)}!`]) {
      const queries = await queriesDuring(h, async () => {
        expectError(await request(h.app).get('/v1/esim').set(bearer(token)), 401, 'key_invalid');
      });
      expect(queries, token).toBe(0);
    }
    const lookedUp = await queriesDuring(h, async () => {
      expectError(await request(h.app).get('/v1/esim').set(bearer(randomKey())), 401, 'key_invalid');
    });
    expect(lookedUp).toBe(1);
  });

  it('every 401 carries a Bearer challenge (RFC 6750): invalid_token when a token was presented', async () => {
    const missing = await request(h.app).get('/v1/esim');
    expectError(missing, 401, 'key_missing');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="Connectivity API"');
    for (const token of [randomKey(), 'not-a-key']) {
      const invalid = await request(h.app).get('/v1/esim').set(bearer(token));
      expectError(invalid, 401, 'key_invalid');
      expect(invalid.headers['www-authenticate']).toBe('Bearer realm="Connectivity API", error="invalid_token"');
    }
    const a = await h.account();
    await h.db.knex('gateway.api_keys').where({ id: a.testKeyId }).update({ status: 'revoked' });
    h.edge.keys.forget({ keyIds: [a.testKeyId] });
    const revoked = await request(h.app).get('/v1/esim').set(bearer(a.test));
    expectError(revoked, 401, 'key_revoked');
    expect(revoked.headers['www-authenticate']).toBe('Bearer realm="Connectivity API", error="invalid_token"');
    // Not a 401, no challenge.
    expect(
      (
        await request(h.app)
          .get('/v1/nowhere')
          .set(bearer((await h.account()).test))
      ).headers['www-authenticate'],
    ).toBeUndefined();
  });

  it('without TRUST_PROXY, X-Forwarded-For is not believed: every client of one socket address shares its budget', async () => {
    const small = await startHarness({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_STORE: 'memory' });
    try {
      for (let i = 0; i < 3; i += 1) await request(small.app).get('/v1/esim').set('X-Forwarded-For', nextClient());
      expectError(await request(small.app).get('/v1/esim').set('X-Forwarded-For', nextClient()), 429, 'rate_limited');
    } finally {
      await small.close();
    }
  });

  it('TRUST_PROXY refuses `true` and anything that is not hops or addresses', async () => {
    const { loadConfig } = await import('../src/index.ts');
    const base = { ...h.env };
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'loopback']);
    expect(loadConfig({ ...base }).TRUST_PROXY).toBe(0);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });
});
