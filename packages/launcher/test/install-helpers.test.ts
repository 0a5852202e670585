import { appleInstallUrl, type Esim, type List, type Order } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { renderQrCode } from '@connectivity/inventory';
import { Connectivity } from '@connectivity/sdk';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

// jsqr is CommonJS: Node's default import is its `module.exports`, which carries the function as `default` too.
const jsQR = jsQRModule.default;

/** The text of the QR code in a PNG, read from its pixels as a phone would. */
function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

/**
 * The install helpers (record 0257) end to end through the public
 * gateway, on PostgreSQL + NATS when configured, else PGlite + the in-process bus: the QR code
 * image crosses the gateway byte for byte, and the metadata filter passes the gateway's own
 * validation against the contract.
 */
describe('eSIM install helpers through the gateway', () => {
  let stack: LocalStack;
  let testKey = '';
  let liveKey = '';
  let order: Order;

  const api = (method: string, path: string, body?: unknown) => stack.call(testKey, method, path, body);
  const image = (path: string, key: string, accept?: string) =>
    fetch(`${stack.composition.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${key}`, ...(accept ? { accept } : {}) } });

  beforeAll(async () => {
    stack = await startLocalStack();
    const account = await createAccount(stack.db.knex);
    testKey = account.test.secret;
    liveKey = account.live.secret;
    const created = await api('POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity: 3, metadata: { batch: 'e2e-7', 'customer id': 'C/42 & co' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    order = created.body as unknown as Order;
    expect((await api('POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', metadata: { batch: 'e2e-8' } })).status).toBe(201);
    expect((await api('POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU' })).status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  test('the QR code PNG arrives byte for byte as inventory drew it, and decodes to the activation code', async () => {
    const esim = order.esims[0] as Esim;
    const response = await image(`/v1/esim/${esim.id}/qr_code`, testKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(response.headers.get('ratelimit-policy')).toBeTruthy();
    const bytes = Buffer.from(await response.arrayBuffer());
    const drawn = await renderQrCode(esim.activation_code ?? '', 'image/png');
    expect(bytes.equals(drawn)).toBe(true);
    expect(decodePng(bytes)).toBe(esim.activation_code);

    // The SDK gets the same bytes.
    const sdk = new Connectivity({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl });
    expect(Buffer.from(await sdk.esims.qrCode(esim.iccid)).equals(drawn)).toBe(true);
    expect(await sdk.esims.qrCode(esim.id, { format: 'svg' })).toBe((await renderQrCode(esim.activation_code ?? '', 'image/svg+xml')).toString('utf8'));
  });

  test('Accept reaches inventory through the gateway: image/svg+xml gives the SVG document', async () => {
    const esim = order.esims[1] as Esim;
    const response = await image(`/v1/esim/${esim.id}/qr_code`, testKey, 'image/png;q=0.5, image/svg+xml');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(response.headers.get('vary')).toBe('Accept');
    const svg = await response.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toBe((await renderQrCode(esim.activation_code ?? '', 'image/svg+xml')).toString('utf8'));
  });

  test('the QR code keeps the errors and the test/live boundary of GET /v1/esim/{id}', async () => {
    const esim = order.esims[0] as Esim;
    const live = await image(`/v1/esim/${esim.id}/qr_code`, liveKey);
    expect(live.status).toBe(403);
    expect(((await live.json()) as { error: { code: string } }).error.code).toBe('live_key_test_resource');
    const missing = await image('/v1/esim/esim_00000000000000000000000000/qr_code', testKey);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
    const other = await createAccount(stack.db.knex);
    expect((await image(`/v1/esim/${esim.id}/qr_code`, other.test.secret)).status).toBe(404);
  });

  test('eSIMs carry apple_install_url and metadata; PATCH merges metadata', async () => {
    const esim = order.esims[2] as Esim;
    expect(esim.apple_install_url).toBe(appleInstallUrl(esim.activation_code));
    expect(order.metadata).toEqual({ batch: 'e2e-7', 'customer id': 'C/42 & co' });
    const patched = await api('PATCH', `/v1/esim/${esim.id}`, { metadata: { 'customer id': '', note: 'spare' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.metadata).toEqual({ batch: 'e2e-7', note: 'spare' });
    expect((await api('GET', `/v1/esim/${esim.id}`)).body).toEqual(patched.body);
    const tooLong = await api('PATCH', `/v1/esim/${esim.id}`, { metadata: { ['k'.repeat(41)]: 'v' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'invalid_parameter', param: `metadata[${'k'.repeat(41)}]` });
  });

  test('GET /v1/esim?metadata[key]=value passes the gateway’s validation, filters, and pages with a bound cursor', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/v1/esim?metadata%5Bbatch%5D=e2e-7&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api('GET', path);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      const list = page.body as unknown as List<Esim>;
      expect(list.data.every((esim) => esim.metadata.batch === 'e2e-7')).toBe(true);
      ids.push(...list.data.map((esim) => esim.id));
      cursor = list.next_cursor;
    } while (cursor !== null);
    expect(ids.sort()).toEqual(order.esims.map((esim) => esim.id).sort());

    // Unencoded brackets and several pairs (AND-ed).
    const both = await api('GET', `/v1/esim?metadata[batch]=e2e-7&metadata[customer%20id]=${encodeURIComponent('C/42 & co')}`);
    expect(both.status).toBe(200);
    expect((both.body as unknown as List<Esim>).data).toHaveLength(2);
    expect((await api('GET', '/v1/esim?metadata[batch]=e2e-8')).body.data).toHaveLength(1);

    const first = (await api('GET', '/v1/esim?metadata[batch]=e2e-7&limit=1')).body as unknown as List<Esim>;
    const foreign = await api('GET', `/v1/esim?metadata[batch]=e2e-8&cursor=${encodeURIComponent(first.next_cursor ?? '')}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });

    for (const [search, param] of [
      ['metadata[batch]=', 'metadata[batch]'],
      ['metadata[batch]=a&metadata[batch]=b', 'metadata[batch]'],
      ['metadata=e2e-7', 'metadata'],
      ['metadata[a%5Bb]=v', 'metadata[a[b]'],
      ['metadata[nul%00]=v', 'metadata[nul\u0000]'],
      ['metadatum[batch]=e2e-7', 'metadatum[batch]'],
    ] as const) {
      const refused = await api('GET', `/v1/esim?${search}`);
      expect(refused.status, search).toBe(400);
      expect(refused.body.error, search).toMatchObject({ code: 'invalid_parameter', param });
    }

    const sdk = new Connectivity({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl });
    const viaSdk = await sdk.esims.list({ metadata: { batch: 'e2e-7', note: 'spare' } }).autoPagingToArray({ limit: 10 });
    expect(viaSdk.map((esim) => esim.id)).toEqual([order.esims[2]?.id]);
  });
});
