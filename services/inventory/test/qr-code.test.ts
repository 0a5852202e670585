import type { Esim } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng, decodeSvg, parseSvg } from './qr-decode.ts';
import { buyEsim, newCaller, otherEnvironment, startInventory, type Caller, type Harness } from './support.ts';

let h: Harness;
let caller: Caller;
let esim: Esim;
beforeAll(async () => {
  h = await startInventory();
  caller = newCaller('test');
  esim = await buyEsim(h, caller);
});
afterAll(async () => {
  await h.close();
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('GET /v1/esim/{id}/qr_code', () => {
  it('answers a PNG by default that decodes to the activation code, by id and by ICCID', async () => {
    for (const id of [esim.id, esim.iccid]) {
      const res = await h.qrCode(caller, id);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.headers.vary).toBe('Accept');
      const body = res.body as Buffer;
      expect(body.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect(Number(res.headers['content-length'])).toBe(body.length);
      expect(decodePng(body)).toBe(esim.activation_code);
    }
  });

  it('answers an SVG document when Accept prefers it, drawing the same code', async () => {
    for (const accept of ['image/svg+xml', 'image/png;q=0.5, image/svg+xml', 'text/html, image/svg+xml;q=0.9']) {
      const res = await h.qrCode(caller, esim.id, accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-type'], accept).toBe('image/svg+xml');
      const text = (res.body as Buffer).toString('utf8');
      const root = parseSvg(text);
      expect(root.getAttribute('viewBox')).toMatch(/^0 0 \d+ \d+$/);
      expect(Number(root.getAttribute('width'))).toBeGreaterThan(0);
      expect(decodeSvg(text)).toBe(esim.activation_code);
    }
  });

  it('answers a PNG for any other Accept', async () => {
    for (const accept of ['image/png', 'image/*', '*/*', 'application/json', 'image/svg+xml;q=0.1, image/png;q=0.2']) {
      const res = await h.qrCode(caller, esim.id, accept);
      expect(res.headers['content-type'], accept).toBe('image/png');
      expect(decodePng(res.body as Buffer), accept).toBe(esim.activation_code);
    }
  });

  it('draws a live eSIM’s activation code from the supplier', async () => {
    const live = newCaller('live');
    await h.fund(live.accountId, { verified: true, live_balance_cents: 100_000 });
    const liveEsim = await buyEsim(h, live);
    expect(liveEsim.matching_id?.startsWith('TEST-')).toBe(false);
    expect(decodePng((await h.qrCode(live, liveEsim.id)).body as Buffer)).toBe(liveEsim.activation_code);
  });

  it('answers the errors of GET /v1/esim/{id} as JSON: unknown, another account’s, the other environment', async () => {
    for (const id of ['esim_00000000000000000000000000', '8988299000000000000', 'nonsense']) {
      const res = await h.qrCode(caller, id);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse((res.body as Buffer).toString('utf8')).error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    }
    expect((await h.qrCode(newCaller('test'), esim.id)).status).toBe(404);
    const live = await h.qrCode(otherEnvironment(caller), esim.id);
    expect(live.status).toBe(403);
    expect(JSON.parse((live.body as Buffer).toString('utf8')).error.code).toBe('live_key_test_resource');
  });

  it('is 404 resource_not_found for an eSIM without an activation code, which has null apple_install_url', async () => {
    const bare = await buyEsim(h, caller);
    expect(bare.apple_install_url).toBe(`https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=${encodeURIComponent(bare.activation_code ?? '')}`);
    await h.db.knex('inventory.esims').where({ id: bare.id }).update({ activation_code: null, smdp_address: null, matching_id: null });
    const res = await h.qrCode(caller, bare.id);
    expect(res.status).toBe(404);
    const error = JSON.parse((res.body as Buffer).toString('utf8')).error;
    expect(error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    expect(error.message).toContain('no activation code');
    expect((await h.get(caller, `/v1/esim/${bare.id}`)).body).toMatchObject({ activation_code: null, apple_install_url: null });
  });
});
