import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, internalInventoryContract } from '@connectivity/contracts';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, INTERNAL_TOKEN, SimulatorHarness, identity } from './support.ts';

/**
 * A stand-in for inventory's internal usage endpoint, built on the same internal contract, so
 * the simulator's client, headers and error pass-through are exercised over real HTTP.
 */
const received: { headers: http.IncomingHttpHeaders; id: string; bytes: number }[] = [];
const esim = (used: number) => ({
  object: 'esim' as const,
  id: 'esim_01jabcdefghjkmnpqrstvwxyz0',
  iccid: '8988247000000000019',
  state: 'active' as const,
  bundle: 'esim_1GB_7D_GB',
  data_used_bytes: used,
  data_limit_bytes: 1_000_000_000,
  activation_code: 'LPA:1$sandbox.smdp.invalid$TEST-ABCDEFGHIJKLMNOPQRST',
  smdp_address: 'sandbox.smdp.invalid',
  matching_id: 'TEST-ABCDEFGHIJKLMNOPQRST',
  expires_at: 1_900_000_000,
  created_at: 1_800_000_000,
  updated_at: 1_800_000_100,
  simulated: true,
});

function startInventoryStandIn(): Promise<http.Server> {
  const app = express();
  app.use(express.json());
  const s = initServer();
  createExpressEndpoints(
    internalInventoryContract,
    s.router(internalInventoryContract, {
      recordUsage: ({ params, body, req }) => {
        received.push({ headers: req.headers, id: params.id, bytes: body.bytes });
        if (params.id === 'esim_missing') throw new ApiError('resource_not_found', { param: 'esim', message: 'No eSIM esim_missing.' });
        if (params.id === 'esim_suspended') {
          throw new ApiError('invalid_parameter', { param: 'esim', message: 'The eSIM is suspended.', detail: 'state: suspended' });
        }
        if (params.id === 'esim_live') throw new ApiError('test_key_live_resource', { param: 'esim' });
        if (params.id === 'esim_broken') throw new Error('boom');
        return Promise.resolve({ status: 200 as const, body: esim(body.bytes) });
      },
    }),
    app,
  );
  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (err instanceof ApiError) res.status(err.status).json(err.toBody(BASE_URL));
    else res.status(502).send('<html>bad gateway</html>');
  });
  const server = http.createServer(app);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let inventory: http.Server;
let h: SimulatorHarness;
let unreachable: SimulatorHarness;
beforeAll(async () => {
  inventory = await startInventoryStandIn();
  h = await SimulatorHarness.create({ INVENTORY_URL: `http://127.0.0.1:${(inventory.address() as AddressInfo).port}` });
  unreachable = await SimulatorHarness.create({ INVENTORY_URL: 'http://127.0.0.1:9', INVENTORY_TIMEOUT_MS: '2000' });
});
afterAll(async () => {
  await h?.close();
  await unreachable?.close();
  await new Promise((resolve) => inventory?.close(resolve));
});

describe('POST /v1/test/usage', () => {
  it("records usage through inventory with the caller's identity and answers the eSIM", async () => {
    const me = identity('test');
    const res = await h.post(me, '/v1/test/usage', { esim: 'esim_01jabcdefghjkmnpqrstvwxyz0', bytes: 1234 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(esim(1234));
    const call = received.at(-1)!;
    expect(call).toMatchObject({ id: 'esim_01jabcdefghjkmnpqrstvwxyz0', bytes: 1234 });
    expect(call.headers).toMatchObject({
      'x-internal-token': INTERNAL_TOKEN,
      'x-account-id': me.accountId,
      'x-environment': 'test',
      'x-key-id': me.keyId,
    });
    expect(call.headers['x-request-id']).toBe(res.headers['request-id']);
  });

  it('accepts an ICCID and passes it on', async () => {
    const res = await h.post(identity('test'), '/v1/test/usage', { esim: '8988247000000000019', bytes: 1 });
    expect(res.status).toBe(200);
    expect(received.at(-1)?.id).toBe('8988247000000000019');
  });

  it.each([
    ['esim_missing', 404, 'resource_not_found', 'esim'],
    ['esim_suspended', 400, 'invalid_parameter', 'esim'],
    ['esim_live', 403, 'test_key_live_resource', 'esim'],
  ])('passes inventory errors through unchanged (%s)', async (id, status, code, param) => {
    const res = await h.post(identity('test'), '/v1/test/usage', { esim: id, bytes: 10 });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, param, link: `${BASE_URL}/v1/errors/${code}` });
    if (id === 'esim_suspended') expect(res.body.error).toMatchObject({ message: 'The eSIM is suspended.', detail: 'state: suspended' });
  });

  it.each([
    [{ bytes: 10 }, 'missing_parameter', 'esim'],
    [{ esim: 'esim_x' }, 'missing_parameter', 'bytes'],
    [{ esim: 'esim_x', bytes: 0 }, 'invalid_parameter', 'bytes'],
    [{ esim: 'esim_x', bytes: 1.5 }, 'invalid_parameter', 'bytes'],
    [{ esim: 'esim_x', bytes: '10' }, 'invalid_parameter', 'bytes'],
    [{ esim: 7, bytes: 10 }, 'invalid_parameter', 'esim'],
    [{ esim: '', bytes: 10 }, 'invalid_parameter', 'esim'],
    [{ esim: 'esim_x', bytes: 10, extra: 1 }, 'invalid_parameter', 'extra'],
  ])('validates %j: %s on %s, without calling inventory', async (body, code, param) => {
    const before = received.length;
    const res = await h.post(identity('test'), '/v1/test/usage', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
    expect(received.length).toBe(before);
  });

  it('refuses live keys before reaching inventory', async () => {
    const before = received.length;
    const res = await h.post(identity('live'), '/v1/test/usage', { esim: 'esim_01jabcdefghjkmnpqrstvwxyz0', bytes: 10 });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'live_key_test_resource' });
    expect(received.length).toBe(before);
  });

  it('answers internal_error, never a bare 500, when inventory fails or cannot be reached', async () => {
    const broken = await h.post(identity('test'), '/v1/test/usage', { esim: 'esim_broken', bytes: 10 });
    expect(broken.status).toBe(500);
    expect(broken.body.error).toMatchObject({ code: 'internal_error', type: 'internal' });
    const down = await unreachable.post(identity('test'), '/v1/test/usage', { esim: 'esim_x', bytes: 10 });
    expect(down.status).toBe(500);
    expect(down.body.error).toMatchObject({ code: 'internal_error', type: 'internal' });
    expect(JSON.stringify(down.body)).not.toContain('127.0.0.1');
  });
});
