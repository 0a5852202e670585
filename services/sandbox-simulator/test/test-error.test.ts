import { ERROR_CATALOGUE, ERROR_CODES } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, SimulatorHarness, identity } from './support.ts';

let h: SimulatorHarness;
beforeAll(async () => {
  h = await SimulatorHarness.create({ INVENTORY_URL: 'http://127.0.0.1:9' });
});
afterAll(async () => {
  await h?.close();
});

// The catalogue's rows; the catalogue itself is pinned row by row against the specification's
// table in packages/contracts (error-catalogue.test.ts), so this test checks the simulator only.
const TABLE = ERROR_CODES.map((code) => [code, ERROR_CATALOGUE[code].type, ERROR_CATALOGUE[code].status] as const);

describe('POST /v1/test/error', () => {
  it("covers the 25 codes of the table, the edge's own three and quota_exceeded", () => {
    expect(TABLE).toHaveLength(29);
  });

  it.each(TABLE)('answers %s as %s with status %i', async (code, type, status) => {
    const me = identity('test');
    const plain = await h.post(me, '/v1/test/error', { code });
    expect(plain.status).toBe(status);
    expect(plain.body).toEqual({
      error: { type, code, message: expect.any(String), link: `${BASE_URL}/v1/errors/${code}` },
    });
    expect(plain.body.error.message.length).toBeGreaterThan(0);

    // Every 429 and 503 says when to retry, the simulated ones too; no other answer does.
    if (status === 429 || status === 503) expect(plain.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    else expect(plain.headers['retry-after']).toBeUndefined();

    const chosen = await h.post(me, '/v1/test/error', { code, param: 'bundle', message: 'Chosen message.' });
    expect(chosen.status).toBe(status);
    expect(chosen.body).toEqual({
      error: { type, code, message: 'Chosen message.', param: 'bundle', link: `${BASE_URL}/v1/errors/${code}` },
    });
  });

  it('refuses an unknown code with invalid_parameter on code', async () => {
    const res = await h.post(identity('test'), '/v1/test/error', { code: 'teapot' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'code', type: 'invalid_request' });
  });

  it.each([
    [{}, 'missing_parameter', 'code'],
    [{ code: 42 }, 'invalid_parameter', 'code'],
    [{ code: 'rate_limited', param: 7 }, 'invalid_parameter', 'param'],
    [{ code: 'rate_limited', message: '' }, 'invalid_parameter', 'message'],
    [{ code: 'rate_limited', extra: true }, 'invalid_parameter', 'extra'],
  ])('validates its own body: %j gives %s on %s', async (body, code, param) => {
    const res = await h.post(identity('test'), '/v1/test/error', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('refuses live keys with live_key_test_resource', async () => {
    const res = await h.post(identity('live'), '/v1/test/error', { code: 'rate_limited' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'live_key_test_resource', type: 'permission' });
  });
});
