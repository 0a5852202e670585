import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer, createLogger, listen } from '@connectivity/platform';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startGateway, type StartedGateway } from '../src/index.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** A real HTTP server standing in for inventory's release routes: it records what it is asked. */
interface Seen {
  method: string;
  url: string;
  token: string | undefined;
  requestId: string | undefined;
}
const seen: Seen[] = [];
const RELEASE = 'ord_01JZ0000000000000000000001';
// Well-formed ids the stand-in refuses (404) or fails on (500); a malformed one never leaves the gateway.
const UNKNOWN = 'ord_01JZ0000000000000000000404';
const BROKEN = 'ord_01JZ0000000000000000000500';
let inventory: Server;
let h: Harness;
let gateway: StartedGateway;
let dataDir: string;

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    seen.push({ method: req.method, url: req.originalUrl, token: req.get('x-internal-token'), requestId: req.get('x-request-id') });
    next();
  });
  app.get('/internal/supplier-releases', (req, res) => {
    if (req.query.status === 'lost') {
      res.status(400).json({
        error: {
          type: 'invalid_request',
          code: 'invalid_parameter',
          param: 'status',
          message: 'bad status',
          link: 'https://api.example.test/v1/errors/invalid_parameter',
        },
      });
      return;
    }
    res.json({ object: 'list', data: [{ object: 'supplier_release', id: RELEASE, status: 'abandoned' }], has_more: false, next_cursor: null });
  });
  app.post('/internal/supplier-releases/:id/retry', (req, res) => {
    if (req.params.id === RELEASE) res.json({ object: 'supplier_release', id: RELEASE, status: 'pending' });
    else if (req.params.id === BROKEN) res.status(500).type('text/plain').send('boom');
    else
      res.status(404).json({
        error: {
          type: 'invalid_request',
          code: 'resource_not_found',
          param: 'release_id',
          message: 'No such release.',
          link: 'https://api.example.test/v1/errors/resource_not_found',
        },
      });
  });
  inventory = await listen(app, 0, '127.0.0.1');
  const address = inventory.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  h = await startHarness();
  dataDir = await mkdtemp(path.join(tmpdir(), 'gateway-admin-releases-'));
  const config = loadConfig({ ...h.env, ADMIN_PORT: '0', DATA_DIR: dataDir, INVENTORY_URL: `http://127.0.0.1:${port}` });
  gateway = await startGateway({ db: h.db, bus: h.bus, logger: createLogger({ name: 'admin-releases-test', level: 'silent' }) }, config);
});
afterAll(async () => {
  await gateway?.stop();
  await h?.close();
  if (inventory) await closeServer(inventory);
  await rm(dataDir, { recursive: true, force: true });
});

const admin = () => ({ Authorization: `Bearer ${gateway.adminToken}` });

function expectAdminError(res: request.Response, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, ...(param !== undefined && { param }) });
}

describe('the admin API over supplier releases', () => {
  it('passes a list, with its query, on to inventory with the internal token', async () => {
    const res = await request(gateway.adminUrl).get('/admin/supplier-releases?status=abandoned&limit=5').set(admin());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual([{ object: 'supplier_release', id: RELEASE, status: 'abandoned' }]);
    const forwarded = seen.at(-1);
    expect(forwarded).toMatchObject({ method: 'GET', url: '/internal/supplier-releases?status=abandoned&limit=5', token: h.config.INTERNAL_TOKEN });
    expect(forwarded?.requestId).toBe(res.get('request-id'));
  });

  it('passes a retry on to inventory', async () => {
    const res = await request(gateway.adminUrl).post(`/admin/supplier-releases/${RELEASE}/retry`).set(admin()).send();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: RELEASE, status: 'pending' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: `/internal/supplier-releases/${RELEASE}/retry` });
  });

  it('answers inventory’s refusals as they are, and its failures as internal_error', async () => {
    expectAdminError(await request(gateway.adminUrl).get('/admin/supplier-releases?status=lost').set(admin()), 400, 'invalid_parameter', 'status');
    expectAdminError(await request(gateway.adminUrl).post(`/admin/supplier-releases/${UNKNOWN}/retry`).set(admin()), 404, 'resource_not_found', 'release_id');
    expectAdminError(await request(gateway.adminUrl).post(`/admin/supplier-releases/${BROKEN}/retry`).set(admin()), 500, 'internal_error');
  });

  it('refuses a malformed release id as inventory would, without calling it', async () => {
    const before = seen.length;
    expectAdminError(await request(gateway.adminUrl).post('/admin/supplier-releases/ord_unknown/retry').set(admin()), 400, 'invalid_parameter', 'releaseId');
    expect(seen.length).toBe(before);
  });

  it('takes only the admin token', async () => {
    const before = seen.length;
    expectAdminError(await request(gateway.adminUrl).get('/admin/supplier-releases'), 401, 'key_missing');
    expect(seen.length).toBe(before);
  });
});
