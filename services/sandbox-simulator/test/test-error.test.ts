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

// The specification's error table, written out so the test pins it independently of the catalogue code.
const TABLE: [string, string, number][] = [
  ['missing_parameter', 'invalid_request', 400],
  ['invalid_parameter', 'invalid_request', 400],
  ['unsupported_version', 'invalid_request', 400],
  ['idempotency_key_required', 'invalid_request', 400],
  ['body_not_json', 'invalid_request', 400],
  ['key_missing', 'authentication', 401],
  ['key_invalid', 'authentication', 401],
  ['key_revoked', 'authentication', 401],
  ['key_out_of_scope', 'permission', 403],
  ['test_key_live_resource', 'permission', 403],
  ['live_key_test_resource', 'permission', 403],
  ['verification_required', 'permission', 403],
  ['balance_insufficient', 'permission', 402],
  ['resource_not_found', 'not_found', 404],
  ['no_such_route', 'not_found', 404],
  ['idempotency_key_reused', 'conflict', 409],
  ['already_exists', 'conflict', 409],
  ['invalid_state_transition', 'conflict', 409],
  ['rate_limited', 'rate_limit', 429],
  ['capability_not_live', 'capability', 409],
  ['capability_not_orderable', 'capability', 409],
  ['pricing_unavailable', 'capability', 503],
  ['supplier_unavailable', 'supplier', 503],
  ['supplier_refused', 'supplier', 503],
  ['internal_error', 'internal', 500],
];

describe('POST /v1/test/error', () => {
  it('covers the 25 codes of the table', () => {
    expect(TABLE).toHaveLength(25);
    expect(TABLE.map(([code]) => code)).toEqual(ERROR_CODES);
  });

  it.each(TABLE)('answers %s as %s with status %i', async (code, type, status) => {
    const me = identity('test');
    const plain = await h.post(me, '/v1/test/error', { code });
    expect(plain.status).toBe(status);
    expect(plain.body).toEqual({
      error: { type, code, message: expect.any(String), link: `${BASE_URL}/v1/errors/${code}` },
    });
    expect(plain.body.error.message.length).toBeGreaterThan(0);

    const chosen = await h.post(me, '/v1/test/error', { code, param: 'bundle', message: 'Chosen message.' });
    expect(chosen.status).toBe(status);
    expect(chosen.body).toEqual({
      error: { type, code, message: 'Chosen message.', param: 'bundle', link: `${BASE_URL}/v1/errors/${code}` },
    });
    expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status).toBe(status);
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
