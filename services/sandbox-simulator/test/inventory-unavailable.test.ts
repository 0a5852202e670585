import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorHarness, identity } from './support.ts';

/**
 * The failures a real inventory cannot be made to produce on demand: inventory down, and an
 * answer without the error object (as a proxy in between might give). Everything else about
 * usage runs against the real inventory in usage.test.ts.
 */
let garbled: http.Server;
let down: SimulatorHarness;
let behindBrokenProxy: SimulatorHarness;
beforeAll(async () => {
  garbled = http.createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'));
  await new Promise<void>((resolve) => garbled.listen(0, '127.0.0.1', resolve));
  down = await SimulatorHarness.create({ INVENTORY_URL: 'http://127.0.0.1:9', INVENTORY_TIMEOUT_MS: '2000' });
  behindBrokenProxy = await SimulatorHarness.create({ INVENTORY_URL: `http://127.0.0.1:${(garbled.address() as AddressInfo).port}` });
});
afterAll(async () => {
  await down?.close();
  await behindBrokenProxy?.close();
  await new Promise((resolve) => garbled?.close(resolve));
});

describe('POST /v1/test/usage when inventory fails', () => {
  it('answers 500 internal_error, never a bare 500, when inventory cannot be reached', async () => {
    const res = await down.post(identity('test'), '/v1/test/usage', { esim: 'esim_01jabcdefghjkmnpqrstvwxyz0', bytes: 10 });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'internal_error', type: 'internal' });
    expect(JSON.stringify(res.body)).not.toContain('127.0.0.1');
  });

  it('answers 500 internal_error when inventory answers without the error object', async () => {
    const res = await behindBrokenProxy.post(identity('test'), '/v1/test/usage', { esim: 'esim_01jabcdefghjkmnpqrstvwxyz0', bytes: 10 });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'internal_error', type: 'internal' });
  });
});
