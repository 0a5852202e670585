import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevAccount, loadConfig, startGateway, type StartedGateway } from '../src/index.ts';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
let gateway: StartedGateway;
let dataDir: string;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-admin-'));
  const config = loadConfig({ ...h.env, ADMIN_PORT: '0', DATA_DIR: dataDir });
  gateway = await startGateway({ db: h.db, bus: h.bus, logger: createLogger({ name: 'admin-test', level: 'silent' }) }, config);
});
afterAll(async () => {
  await gateway?.stop();
  await h?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const admin = () => ({ Authorization: `Bearer ${gateway.adminToken}` });

describe('the operator admin API', () => {
  it('writes its URL and token to DATA_DIR/admin.json, readable by the owner only', async () => {
    const file = path.join(dataDir, 'admin.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: gateway.adminUrl, token: gateway.adminToken });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(gateway.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses calls without the admin token', async () => {
    expectAdminError(await request(gateway.adminUrl).post('/admin/accounts').send({}), 401, 'key_missing');
    expectAdminError(await request(gateway.adminUrl).post('/admin/accounts').set(bearer('wrong-token-wrong-token-wrong')).send({}), 401, 'key_invalid');
  });

  it('creates an account whose two keys work at once', async () => {
    const res = await request(gateway.adminUrl).post('/admin/accounts').set(admin()).send({ name: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body.keys.test.secret).toMatch(/^sk_test_/);
    expect(res.body.keys.live.secret).toMatch(/^sk_live_/);
    expect(
      (
        await request(gateway.app)
          .get('/v1/version')
          .set(bearer((res.body as CreatedAccount).keys.test.secret))
      ).status,
    ).toBe(200);
    expect(
      (
        await request(gateway.app)
          .get('/v1/version')
          .set(bearer((res.body as CreatedAccount).keys.live.secret))
      ).status,
    ).toBe(200);
    const view = await request(gateway.adminUrl).get(`/admin/accounts/${res.body.id}`).set(admin());
    expect(view.body.keys).toHaveLength(2);
    expect(JSON.stringify(view.body)).not.toContain(res.body.keys.test.secret);
  });

  it('rotates, restricts and revokes keys', async () => {
    const created = (await request(gateway.adminUrl).post('/admin/accounts').set(admin()).send({})).body as CreatedAccount;
    const oldSecret = created.keys.test.secret;
    const rotatedRes = await request(gateway.adminUrl)
      .post(`/admin/accounts/${created.id}/keys`)
      .set(admin())
      .send({ environment: 'test', scopes: ['esim:read'] });
    expect(rotatedRes.status).toBe(201);
    const rotated = { body: rotatedRes.body as { id: string; secret: string; replaced: { id: string } } };
    expect(rotated.body.replaced.id).toBe(created.keys.test.id);
    expectError(await request(gateway.app).get('/v1/esim').set(bearer(oldSecret)), 401, 'key_revoked');
    expect((await request(gateway.app).get('/v1/esim').set(bearer(rotated.body.secret))).status).toBe(200);
    expectError(await request(gateway.app).get('/v1/api_keys').set(bearer(rotated.body.secret)), 403, 'key_out_of_scope');

    const restricted = await request(gateway.adminUrl)
      .patch(`/admin/keys/${rotated.body.id}`)
      .set(admin())
      .send({ scopes: ['keys:read'] });
    expect(restricted.body.scopes).toEqual(['keys:read']);
    expect((await request(gateway.app).get('/v1/api_keys').set(bearer(rotated.body.secret))).status).toBe(200);

    const revoked = await request(gateway.adminUrl).post(`/admin/keys/${rotated.body.id}/revoke`).set(admin()).send();
    expect(revoked.body.status).toBe('revoked');
    expectError(await request(gateway.app).get('/v1/api_keys').set(bearer(rotated.body.secret)), 401, 'key_revoked');
  });

  it('issues a throwaway test key beside the account’s own, which keeps working and stays the one a rotation replaces', async () => {
    const created = (await request(gateway.adminUrl).post('/admin/accounts').set(admin()).send({})).body as CreatedAccount;
    const extra = await request(gateway.adminUrl)
      .post(`/admin/accounts/${created.id}/keys`)
      .set(admin())
      .send({ environment: 'test', throwaway: true, scopes: ['catalogue:read'] });
    expect(extra.status, JSON.stringify(extra.body)).toBe(201);
    expect(extra.body).toMatchObject({ environment: 'test', status: 'active', scopes: ['catalogue:read'], replaced: null });
    // Both work at once.
    expect((await request(gateway.app).get('/v1/esim').set(bearer(created.keys.test.secret))).status).toBe(200);
    expect(
      (
        await request(gateway.app)
          .get('/v1/esim/bundles')
          .set(bearer(extra.body.secret as string))
      ).status,
    ).toBe(200);
    // A rotation replaces the account's own key, not the throwaway one.
    const rotated = await request(gateway.adminUrl).post(`/admin/accounts/${created.id}/keys`).set(admin()).send({ environment: 'test' });
    expect(rotated.body.replaced.id).toBe(created.keys.test.id);
    expect(
      (
        await request(gateway.app)
          .get('/v1/esim/bundles')
          .set(bearer(extra.body.secret as string))
      ).status,
    ).toBe(200);
    // Live accounts have one key.
    const live = await request(gateway.adminUrl).post(`/admin/accounts/${created.id}/keys`).set(admin()).send({ environment: 'live', throwaway: true });
    expectAdminError(live, 400, 'invalid_parameter');
    expect(live.body.error.param).toBe('throwaway');
  });

  it('passes verification and live balance on to inventory, and keeps the rate limit itself', async () => {
    const created = (await request(gateway.adminUrl).post('/admin/accounts').set(admin()).send({})).body as CreatedAccount;
    const res = await request(gateway.adminUrl)
      .patch(`/admin/accounts/${created.id}`)
      .set(admin())
      .send({ verified: true, live_balance_cents: 5000, rate_limit_per_minute: 300 });
    expect(res.status).toBe(200);
    expect(res.body.settings).toMatchObject({ verified: true, live_balance_cents: 5000 });
    expect(res.body.rate_limit_per_minute).toBe(300);
    const forwarded = h.upstream.seen.find((r) => r.url === `/internal/accounts/${created.id}`);
    expect(forwarded?.method).toBe('PUT');
    expect(forwarded?.headers['x-internal-token']).toBe(h.config.INTERNAL_TOKEN);
    expect(JSON.parse(forwarded?.body ?? '{}')).toEqual({ verified: true, live_balance_cents: 5000 });
  });

  it('passes the live-ordering switch on to catalogue', async () => {
    const created = (await request(gateway.adminUrl).post('/admin/accounts').set(admin()).send({})).body as CreatedAccount;
    const res = await request(gateway.adminUrl).patch(`/admin/accounts/${created.id}`).set(admin()).send({ live_ordering: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, live_ordering: false, settings: null });
    const forwarded = h.upstream.seen.find((r) => r.url === `/internal/accounts/${created.id}/live-ordering`);
    expect(forwarded?.method).toBe('PUT');
    expect(forwarded?.headers['x-internal-token']).toBe(h.config.INTERNAL_TOKEN);
    expect(JSON.parse(forwarded?.body ?? '{}')).toEqual({ enabled: false });
    expectAdminError(
      await request(gateway.adminUrl).patch(`/admin/accounts/${created.id}`).set(admin()).send({ live_ordering: 'off' }),
      400,
      'invalid_parameter',
    );
  });

  it('refuses bad input with the error object', async () => {
    expectAdminError(
      await request(gateway.adminUrl).post('/admin/accounts/acct_nope/keys').set(admin()).send({ environment: 'test' }),
      404,
      'resource_not_found',
    );
    expectAdminError(
      await request(gateway.adminUrl).post('/admin/accounts/acct_nope/keys').set(admin()).send({ environment: 'prod' }),
      400,
      'invalid_parameter',
    );
    expectAdminError(
      await request(gateway.adminUrl)
        .patch('/admin/keys/key_nope')
        .set(admin())
        .send({ scopes: ['root'] }),
      400,
      'invalid_parameter',
    );
    expectAdminError(
      await request(gateway.adminUrl).patch('/admin/accounts/acct_nope').set(admin()).send({ live_balance_cents: -1 }),
      400,
      'invalid_parameter',
    );
    expectAdminError(await request(gateway.adminUrl).get('/admin/nothing').set(admin()), 404, 'no_such_route');
  });
});

describe('the embedded dev account', () => {
  it('uses the given keys, keeps generated ones across restarts, and rotates when a key changes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gateway-dev-'));
    const db = await (await import('@connectivity/platform/testing')).createTestDatabase();
    try {
      await (await import('@connectivity/platform')).runMigrations(db.knex, (await import('../src/index.ts')).migrations);
      const first = await ensureDevAccount({ db }, { dataDir: dir });
      expect(first.issued).toBe(true);
      const again = await ensureDevAccount({ db }, { dataDir: dir });
      expect(again).toMatchObject({ accountId: first.accountId, testKey: first.testKey, liveKey: first.liveKey, issued: false });
      const chosen = `sk_test_${'A'.repeat(30)}`;
      const changed = await ensureDevAccount({ db }, { dataDir: dir, testKey: chosen });
      expect(changed).toMatchObject({ accountId: first.accountId, testKey: chosen, liveKey: first.liveKey, issued: true });
      const active = await db.knex('gateway.api_keys').where({ account_id: first.accountId, status: 'active' });
      expect(active).toHaveLength(2);
      await expect(ensureDevAccount({ db }, { testKey: 'sk_live_nope' })).rejects.toThrow(/DEV_TEST_KEY/);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

interface CreatedAccount {
  id: string;
  keys: { test: { id: string; secret: string }; live: { id: string; secret: string } };
}

function expectAdminError(res: request.Response, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
}
