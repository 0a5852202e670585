import { createLogger, currentRequestId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startGateway, type StartedGateway } from '../src/index.ts';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

/**
 * Keys are served from each gateway instance's memory, and a change made through one instance's
 * admin API reaches every instance over the bus: two full gateways (public app, admin API, key
 * cache) on one database and bus.
 */
let h: Harness;
let one: StartedGateway;
let two: StartedGateway;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  const start = (name: string) =>
    startGateway({ db: h.db, bus: h.bus, logger: createLogger({ name, level: 'silent' }) }, loadConfig({ ...h.env, ADMIN_PORT: '0', DATA_DIR: 'memory://' }));
  one = await start('one');
  two = await start('two');
});
afterAll(async () => {
  await one?.stop();
  await two?.stop();
  await h?.close();
});

const admin = (gateway: StartedGateway) => ({ Authorization: `Bearer ${gateway.adminToken}` });
const version = (gateway: StartedGateway, key: string) => request(gateway.app).get('/v1/version').set(bearer(key));

/** How long until `check` holds, polling; fails after 5 s. */
async function timeUntil(check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > 5_000) throw new Error('not within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - started;
}

describe('the key cache', () => {
  it('answers authenticated reads without a database round trip in steady state', async () => {
    const a = await h.account();
    // Only the queries a request makes count: background work (the outbox relay, the request
    // log's flush) runs outside every request's context and may land in the window at any time.
    const queries: string[] = [];
    const count = (query: { sql: string }) => {
      if (currentRequestId() !== undefined) queries.push(query.sql);
    };
    h.db.knex.on('query', count);
    try {
      // The first request reads the key (and records its first use and the version pin): the
      // count sees it, so an empty count below means no query, not a blind counter.
      expect((await version(one, a.test)).status).toBe(200);
      expect(queries.length).toBeGreaterThan(0);
      expect((await version(one, a.test)).status).toBe(200);
      queries.length = 0;
      for (let i = 0; i < 50; i += 1) expect((await version(one, a.test)).status).toBe(200);
    } finally {
      h.db.knex.off('query', count);
    }
    expect(queries).toEqual([]);
  });

  it('a key revoked through one instance is refused by every instance within 1 second', async () => {
    const a = await h.account();
    expect((await version(one, a.test)).status).toBe(200);
    expect((await version(two, a.test)).status).toBe(200);
    const revoked = await request(one.adminUrl).post(`/admin/keys/${a.testKeyId}/revoke`).set(admin(one));
    expect(revoked.status).toBe(200);
    const elapsed = await timeUntil(async () => (await version(two, a.test)).status === 401);
    expect(elapsed).toBeLessThan(1_000);
    expectError(await version(two, a.test), 401, 'key_revoked');
    expectError(await version(one, a.test), 401, 'key_revoked');
  });

  it('restricted scopes and a rotation reach the other instance too', async () => {
    const a = await h.account();
    const list = (gateway: StartedGateway, key: string) => request(gateway.app).get('/v1/esim').set(bearer(key));
    expect((await list(two, a.test)).status).toBe(200);
    expect(
      (
        await request(one.adminUrl)
          .patch(`/admin/keys/${a.testKeyId}`)
          .set(admin(one))
          .send({ scopes: ['catalogue:read'] })
      ).status,
    ).toBe(200);
    await timeUntil(async () => (await list(two, a.test)).status === 403);
    expectError(await list(two, a.test), 403, 'key_out_of_scope');

    const rotated = await request(one.adminUrl).post(`/admin/accounts/${a.accountId}/keys`).set(admin(one)).send({ environment: 'live' });
    expect(rotated.status).toBe(201);
    await timeUntil(async () => (await version(two, a.live)).status === 401);
    expect((await version(two, String(rotated.body.secret))).status).toBe(200);
  });

  it('a key changed behind the gateways’ backs (no notice) is read again once its cache entry ages', async () => {
    const quick = await startGateway(
      { db: h.db, bus: h.bus, logger: createLogger({ name: 'quick', level: 'silent' }) },
      loadConfig({ ...h.env, ADMIN_PORT: '0', DATA_DIR: 'memory://', KEY_CACHE_TTL_MS: '200' }),
    );
    try {
      const a = await h.account();
      expect((await version(quick, a.test)).status).toBe(200);
      await h.db.knex('gateway.api_keys').where({ id: a.testKeyId }).update({ status: 'revoked', revoked_at: h.db.knex.fn.now() });
      await timeUntil(async () => (await version(quick, a.test)).status === 401);
    } finally {
      await quick.stop();
    }
  });
});
