import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startGateway, type StartedGateway } from '../src/index.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** The admin API validates every input against its contract, like the public API: the error object, never a 500. */
let h: Harness;
let gateway: StartedGateway;
let dataDir: string;
beforeAll(async () => {
  h = await startHarness();
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-admin-validation-'));
  const config = loadConfig({ ...h.env, ADMIN_PORT: '0', DATA_DIR: dataDir });
  gateway = await startGateway({ db: h.db, bus: h.bus, logger: createLogger({ name: 'admin-validation-test', level: 'silent' }) }, config);
});
afterAll(async () => {
  await gateway?.stop();
  await h?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const admin = () => ({ Authorization: `Bearer ${gateway.adminToken}` });

function expectAdminError(res: request.Response, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, link: `https://api.example.test/v1/errors/${code}`, ...(param !== undefined && { param }) });
  expect(typeof res.body.error.message).toBe('string');
}

describe('admin input validation against the admin contract', () => {
  it('a body over its 64 kB limit says that limit, with the error object and nosniff/no-store', async () => {
    const api = request(gateway.adminUrl);
    const res = await api
      .post('/admin/accounts')
      .set(admin())
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(70_000) }));
    expectAdminError(res, 400, 'invalid_parameter', 'body');
    expect(res.body.error.message).toContain('64 kB');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('names the body field at fault: unknown, wrong type, absent', async () => {
    const api = request(gateway.adminUrl);
    expectAdminError(await api.post('/admin/accounts').set(admin()).send({ name: 'A', plan: 'gold' }), 400, 'invalid_parameter', 'plan');
    expectAdminError(await api.post('/admin/accounts').set(admin()).send({ name: 42 }), 400, 'invalid_parameter', 'name');
    expectAdminError(await api.post('/admin/accounts/acct_x/keys').set(admin()).send({}), 400, 'missing_parameter', 'environment');
    expectAdminError(await api.post('/admin/accounts/acct_x/keys').set(admin()).send({ environment: 'test', scopes: [] }), 400, 'invalid_parameter', 'scopes');
    expectAdminError(await api.patch('/admin/keys/key_x').set(admin()).send({}), 400, 'missing_parameter', 'scopes');
    expectAdminError(
      await api.patch('/admin/accounts/acct_x').set(admin()).send({ rate_limit_per_minute: 1.5 }),
      400,
      'invalid_parameter',
      'rate_limit_per_minute',
    );
    expectAdminError(
      await api.patch('/admin/accounts/acct_x').set(admin()).send({ live_balance_cents: '100' }),
      400,
      'invalid_parameter',
      'live_balance_cents',
    );
    expectAdminError(await api.post('/admin/keys/key_x/revoke').set(admin()).send({ now: true }), 400, 'invalid_parameter', 'now');
  });

  it('refuses a body that is not a JSON object', async () => {
    const api = request(gateway.adminUrl);
    expectAdminError(await api.post('/admin/accounts').set(admin()).set('content-type', 'application/json').send('{"name":'), 400, 'body_not_json');
    expectAdminError(await api.post('/admin/accounts').set(admin()).set('content-type', 'application/json').send('"Acme"'), 400, 'invalid_parameter', 'body');
    expectAdminError(
      await api.patch('/admin/accounts/acct_x').set(admin()).set('content-type', 'application/json').send('[1]'),
      400,
      'invalid_parameter',
      'body',
    );
  });

  it('checks the query of supplier releases before inventory is asked', async () => {
    const before = h.upstream.seen.length;
    const api = request(gateway.adminUrl);
    expectAdminError(await api.get('/admin/supplier-releases?limit=0').set(admin()), 400, 'invalid_parameter', 'limit');
    expectAdminError(await api.get('/admin/supplier-releases?status=lost').set(admin()), 400, 'invalid_parameter', 'status');
    expectAdminError(await api.get('/admin/supplier-releases?colour=red').set(admin()), 400, 'invalid_parameter', 'colour');
    expect(h.upstream.seen.length).toBe(before);
  });

  it('answers unknown ids with resource_not_found, and reads a key with its account', async () => {
    const api = request(gateway.adminUrl);
    expectAdminError(await api.get('/admin/accounts/acct_nope').set(admin()), 404, 'resource_not_found', 'account');
    expectAdminError(await api.get('/admin/keys/key_nope').set(admin()), 404, 'resource_not_found', 'key');
    const created = (await api.post('/admin/accounts').set(admin()).send({})).body as { id: string; keys: { test: { id: string } } };
    const key = await api.get(`/admin/keys/${created.keys.test.id}`).set(admin());
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({ object: 'api_key', id: created.keys.test.id, account_id: created.id, environment: 'test' });
    expect(JSON.stringify(key.body)).not.toMatch(/sk_test_[0-9A-Za-z]{24}/);
  });

  it('serves its own OpenAPI document behind the token, apart from the public one', async () => {
    expectAdminError(await request(gateway.adminUrl).get('/admin/openapi.json'), 401, 'key_missing');
    const doc = await request(gateway.adminUrl).get('/admin/openapi.json').set(admin());
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths as object)).toContain('/admin/accounts/{accountId}/keys');
    const publicDoc = await request(h.app).get('/v1/openapi.json');
    expect(Object.keys(publicDoc.body.paths as object).some((p) => p.startsWith('/admin'))).toBe(false);
  });
});
