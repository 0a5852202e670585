import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

/**
 * The suppliers' callbacks: public, outside /v1, without an API key (the vendor's signature is
 * checked behind the gateway), the exact bytes passed on with the headers, a size limit, and a
 * budget per source address of their own. Sources are told apart by X-Forwarded-For.
 */
let h: Harness;
let address = 0;
const nextSource = () => ({ 'X-Forwarded-For': `198.51.100.${(address += 1)}` });
const forwarded = () => h.upstream.seen.filter((seen) => seen.url.startsWith('/internal/supplier-callbacks/'));

beforeAll(async () => {
  h = await startHarness({
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_PER_MINUTE: '5',
    SUPPLIER_HOOK_RATE_LIMIT_PER_MINUTE: '4',
    SUPPLIER_HOOK_MAX_BODY_BYTES: '2048',
    RATE_LIMIT_STORE: 'memory',
  });
});
afterAll(async () => {
  await h?.close();
});

describe('POST /hooks/<vendor>', () => {
  it('needs no key, and passes the exact bytes and the headers to catalogue for no account', async () => {
    // Bytes a JSON parser would reformat: spacing, key order, an escaped character.
    const body = '{ "iccid":"8988247000000000017",  "event" : "Utilisation", "note":"caf\\u00e9" }';
    const res = await request(h.app)
      .post('/hooks/esim-go')
      .set(nextSource())
      .set('Content-Type', 'application/json')
      .set('X-Signature-SHA256', 'good')
      .set('Cookie', 'session=secret')
      .send(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ received: 1, stored: 1 });
    const [seen] = forwarded().slice(-1);
    expect(seen?.url).toBe('/internal/supplier-callbacks/esim-go');
    const sent = JSON.parse(seen?.body ?? '{}') as { body_base64: string; headers: Record<string, string> };
    expect(Buffer.from(sent.body_base64, 'base64').toString('utf8')).toBe(body);
    expect(sent.headers['x-signature-sha256']).toBe('good');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers.cookie).toBeUndefined();
    // For no account: the internal token and a request id, never a caller.
    expect(seen?.headers['x-internal-token']).toBe('internal-token-for-tests-only');
    expect(seen?.headers['x-request-id']).toMatch(/^req_/);
    expect(seen?.headers['x-account-id']).toBeUndefined();
    expect(seen?.headers['x-environment']).toBeUndefined();
  });

  it('serves Airalo at its own path', async () => {
    const res = await request(h.app).post('/hooks/airalo').set(nextSource()).set('X-Signature-SHA256', 'good').send('{}');
    expect(res.status).toBe(200);
    expect(forwarded().at(-1)?.url).toBe('/internal/supplier-callbacks/airalo');
  });

  it('answers the HEAD a vendor sends to check the URL when it is registered, passing nothing on', async () => {
    const before = forwarded().length;
    expect((await request(h.app).head('/hooks/airalo').set(nextSource())).status).toBe(200);
    expect(forwarded().length).toBe(before);
  });

  it("a signature catalogue refuses is 401 signature_invalid, a code of its own (not an API key's), in the API's error object", async () => {
    const refused = await request(h.app).post('/hooks/airalo').set(nextSource()).set('X-Signature-SHA256', 'forged').send('{}');
    expectError(refused, 401, 'signature_invalid');
    expect(refused.body.error.link).toMatch(/\/v1\/errors\/signature_invalid$/);
  });

  it('the vendor that is not the live one: the 404 of any unknown route, naming nothing', async () => {
    const a = await h.account();
    const before = forwarded().length;
    const res = await request(h.app).post('/hooks/esim-go').set(nextSource()).set('X-Signature-SHA256', 'good').set('X-Live-Supplier', 'airalo').send('{}');
    expect(forwarded().length).toBe(before + 1);
    expectError(res, 404, 'no_such_route');
    // Word for word what an unknown route answers.
    const unknown = await request(h.app).post('/v1/nowhere').set(bearer(a.test)).send('{}');
    expect(res.body).toEqual({ error: { ...unknown.body.error, message: 'No route POST /hooks/esim-go.' } });
    expect(unknown.body.error.message).toBe('No route POST /v1/nowhere.');
    expect(JSON.stringify(res.body)).not.toMatch(/airalo|live|supplier|vendor/i);
  });

  it('a body over the limit is refused before anything is passed on', async () => {
    const before = forwarded().length;
    const res = await request(h.app).post('/hooks/esim-go').set(nextSource()).set('X-Signature-SHA256', 'good').send('x'.repeat(4096));
    expectError(res, 400, 'invalid_parameter', 'body');
    expect(forwarded().length).toBe(before);
  });

  it('an unknown vendor is not a hook: it goes to the API, which asks for a key', async () => {
    const before = forwarded().length;
    expectError(await request(h.app).post('/hooks/someone').set(nextSource()).send('{}'), 401, 'key_missing');
    expect(forwarded().length).toBe(before);
  });

  it.each(['get', 'put', 'patch', 'delete', 'options'] as const)('%s at a hook is 405 method_not_allowed with Allow, passing nothing on', async (method) => {
    const before = forwarded().length;
    const res = await request(h.app)[method]('/hooks/airalo').set(nextSource()).send('{}');
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST, HEAD');
    expect(forwarded().length).toBe(before);
  });

  it('is limited per source address, on a budget apart from the API', async () => {
    const source = nextSource();
    for (let i = 0; i < 4; i += 1)
      expect((await request(h.app).post('/hooks/esim-go').set(source).set('X-Signature-SHA256', 'good').send('{}')).status).toBe(200);
    const before = forwarded().length;
    const refused = await request(h.app).post('/hooks/esim-go').set(source).set('X-Signature-SHA256', 'good').send('{}');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(forwarded().length).toBe(before);
    // Another source keeps its budget; the spent source's API budget is untouched.
    expect((await request(h.app).post('/hooks/esim-go').set(nextSource()).set('X-Signature-SHA256', 'good').send('{}')).status).toBe(200);
    expectError(await request(h.app).get('/v1/esim').set(source).set(bearer('sk_test_NotARealKeyNotARealKey0000')), 401, 'key_invalid');
  });
});
