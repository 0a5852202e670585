import type { Bundle, Esim, EsimBundle, List, Topup } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyEsim, eventTypesOf, eventually, headersFor, newCaller, startInventory, type Caller, type Harness } from './support.ts';

/**
 * Sandbox top-ups through the app (records 0240-0243): the offers of an eSIM, a top-up, the bundles on
 * the eSIM, the revival of an eSIM expired for want of data or time, the events, the simulated balance,
 * and the refusals (each the error object).
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400;
const GB = 1_000_000_000;
const key = () => `idem-${newId('request')}`;

const topUp = (caller: Caller, esimId: string, bundle: unknown, idempotencyKey = key()) =>
  request(h.app).post(`/v1/esim/${esimId}/topups`).set(headersFor(caller)).set('Idempotency-Key', idempotencyKey).send({ bundle });
const esimOf = async (caller: Caller, id: string) => {
  const res = await h.get(caller, `/v1/esim/${id}`);
  expect(res.status).toBe(200);
  return res.body as Esim;
};
const bundlesOf = async (caller: Caller, id: string, query = '') => {
  const res = await h.get(caller, `/v1/esim/${id}/bundles${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as List<EsimBundle>;
};
async function toppedUp(caller: Caller, esimId: string, bundle: string): Promise<Topup> {
  const res = await topUp(caller, esimId, bundle);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Topup;
}
async function used(caller: Caller, esimId: string, bytes: number): Promise<void> {
  const res = await h.usage(caller, esimId, bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('the offers of an eSIM (GET /v1/esim/{id}/topups)', () => {
  it('lists the sandbox bundles that cover its countries, of its kind, by name, a page at a time', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    const res = await h.get(caller, `/v1/esim/${esim.id}/topups?limit=100`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const offers = res.body as List<Bundle>;
    const names = offers.data.map((b) => b.name);
    expect(names).toContain('esim_5GB_30D_EU');
    expect(names).toContain('esim_20GB_30D_EU');
    expect(names).not.toContain('esim_1GB_7D_US');
    expect(names.some((name) => name.startsWith('esim_UL_'))).toBe(false);
    expect([...names].sort()).toEqual(names);
    const eu = offers.data.find((b) => b.name === 'esim_5GB_30D_EU');
    expect(eu?.countries.length).toBeGreaterThan(5);
    for (const offer of offers.data) {
      expect(offer).toMatchObject({ object: 'bundle', unlimited: false, simulated: true, currency: 'USD' });
      for (const country of eu!.countries) expect(offer.countries).toContain(country);
    }

    const first = (await h.get(caller, `/v1/esim/${esim.id}/topups?limit=1`)).body as List<Bundle>;
    expect(first).toMatchObject({ has_more: names.length > 1, data: [{ name: names[0] }] });
    const second = (await h.get(caller, `/v1/esim/${esim.id}/topups?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`)).body as List<Bundle>;
    expect(second.data[0]?.name).toBe(names[1]);
  });

  it('is empty for a cancelled eSIM; another account’s eSIM is 404 and the other environment’s 403', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    const res = await h.get(caller, `/v1/esim/${esim.id}/topups`);
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect((await h.get(newCaller('test'), `/v1/esim/${esim.id}/topups`)).body.error).toMatchObject({ code: 'resource_not_found' });
    expect((await h.get(newCaller('live', caller.accountId), `/v1/esim/${esim.id}/topups`)).body.error).toMatchObject({ code: 'live_key_test_resource' });
  });
});

describe('a top-up (POST /v1/esim/{id}/topups)', () => {
  it('before a first-use validity starts: expires_at stays null, and the first use counts both bundles’ days from it', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU_FIRSTUSE');
    expect(esim).toMatchObject({ validity_start: 'first_use', expires_at: null });
    await toppedUp(caller, esim.id, 'esim_20GB_30D_EU');
    expect((await esimOf(caller, esim.id)).expires_at).toBeNull();
    for (const step of ['installed', 'active']) expect((await h.patch(caller, esim.id, step)).status).toBe(200);
    const started = Math.floor(Date.now() / 1000);
    const active = await esimOf(caller, esim.id);
    expect(Math.abs(active.expires_at! - (started + 60 * DAY))).toBeLessThan(60);
  });

  it('adds the bundle’s data and validity to the eSIM, lists it queued behind the first, and sends esim.topped_up', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    await used(caller, esim.id, 1 * GB);
    const topup = await toppedUp(caller, esim.id, 'esim_20GB_30D_EU');
    expect(topup).toEqual({
      object: 'topup',
      id: expect.stringMatching(/^top_[0-9a-z]{26}$/),
      esim: esim.id,
      bundle: 'esim_20GB_30D_EU',
      price_cents: 3999,
      currency: 'USD',
      status: 'succeeded',
      simulated: true,
      created_at: expect.any(Number),
    });
    const after = await esimOf(caller, esim.id);
    expect(after).toMatchObject({
      state: 'active',
      activation_code: esim.activation_code,
      data_used_bytes: 1 * GB,
      data_limit_bytes: 25 * GB,
      expires_at: esim.expires_at! + 30 * DAY,
    });
    expect((await bundlesOf(caller, esim.id)).data).toEqual([
      {
        object: 'esim_bundle',
        bundle: 'esim_5GB_30D_EU',
        topup: null,
        state: 'active',
        data_limit_bytes: 5 * GB,
        data_used_bytes: 1 * GB,
        expires_at: esim.expires_at,
        created_at: esim.created_at,
      },
      {
        object: 'esim_bundle',
        bundle: 'esim_20GB_30D_EU',
        topup: topup.id,
        state: 'queued',
        data_limit_bytes: 20 * GB,
        data_used_bytes: 0,
        expires_at: null,
        created_at: topup.created_at,
      },
    ]);
    const types = await eventTypesOf(h, esim.id, 4);
    expect(types).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.topped_up']);
    const event = h.eventsOf(esim.id).at(-1)!;
    expect(event).toMatchObject({ type: 'esim.topped_up', environment: 'test', data: { object: after, previous_state: 'active', topup } });
  });

  it('revives an eSIM whose data ran out: same eSIM and code, active again, expired_reason null, thresholds from the new limit', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    await used(caller, esim.id, 5 * GB);
    expect(await esimOf(caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted' });

    const topup = await toppedUp(caller, esim.id, 'esim_5GB_30D_EU');
    const after = await esimOf(caller, esim.id);
    expect(after).toMatchObject({ id: esim.id, iccid: esim.iccid, activation_code: esim.activation_code, state: 'active', expired_reason: null });
    expect(after.data_limit_bytes).toBe(10 * GB);
    expect((await bundlesOf(caller, esim.id)).data.map((b) => [b.bundle, b.topup, b.state])).toEqual([
      ['esim_5GB_30D_EU', null, 'depleted'],
      ['esim_5GB_30D_EU', topup.id, 'active'],
    ]);
    const types = await eventTypesOf(h, esim.id, 8);
    expect(types.slice(-3)).toEqual(['esim.expired', 'esim.topped_up', 'esim.activated']);
    expect(h.eventsOf(esim.id).at(-1)).toMatchObject({ data: { object: { state: 'active', expired_reason: null }, previous_state: 'expired' } });
    expect(h.eventsOf(esim.id).at(-2)).toMatchObject({ data: { object: { state: 'active' }, previous_state: 'expired', topup: { id: topup.id } } });

    // Against the new 10 GB, 5 GB used is 50 %, already reached: not sent again; 80 and 100 are, as usage gets there.
    const thresholds = async (count: number) =>
      eventually(() => {
        const fired = h.eventsOf(esim.id).filter((e) => e.type === 'esim.usage.threshold');
        expect(fired.length).toBeGreaterThanOrEqual(count);
        return fired.map((e) => (e.data as { threshold_percent: number }).threshold_percent);
      });
    await used(caller, esim.id, 3 * GB);
    expect(await thresholds(4)).toEqual([50, 80, 100, 80]);
    await used(caller, esim.id, 2 * GB);
    expect(await thresholds(5)).toEqual([50, 80, 100, 80, 100]);
    expect(await esimOf(caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: 10 * GB });
    expect((await bundlesOf(caller, esim.id)).data.map((b) => b.state)).toEqual(['depleted', 'depleted']);
  });

  it('revives an eSIM whose validity ended back into the state it had (suspended), on its test clock', async () => {
    const caller = newCaller('test');
    const start = Math.floor(Date.now() / 1000);
    const clock = await request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send({ frozen_time: start });
    expect(clock.status).toBe(201);
    const order = await h.order(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.body.id });
    expect(order.status).toBe(201);
    const esim = order.body.esims[0] as Esim;
    for (const state of ['installed', 'active', 'suspended']) expect((await h.patch(caller, esim.id, state)).status).toBe(200);
    const advanced = await request(h.app)
      .post(`/v1/test/clocks/${clock.body.id}/advance`)
      .set(headersFor(caller))
      .set('Idempotency-Key', key())
      .send({ frozen_time: start + 10 * DAY });
    expect(advanced.status).toBe(200);
    expect(await esimOf(caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' });

    const topup = await toppedUp(caller, esim.id, 'esim_3GB_15D_US');
    expect(topup.created_at).toBe(start + 10 * DAY);
    expect(await esimOf(caller, esim.id)).toMatchObject({
      state: 'suspended',
      expired_reason: null,
      data_limit_bytes: 4 * GB,
      expires_at: start + 10 * DAY + 15 * DAY,
    });
    expect((await bundlesOf(caller, esim.id)).data.map((b) => [b.bundle, b.state, b.expires_at])).toEqual([
      ['esim_1GB_7D_US', 'expired', start + 7 * DAY],
      ['esim_3GB_15D_US', 'active', start + 25 * DAY],
    ]);
    const types = await eventTypesOf(h, esim.id, 7);
    expect(types.slice(-3)).toEqual(['esim.expired', 'esim.topped_up', 'esim.suspended']);
  });

  it('is paid from the simulated balance when one is set (402 when it cannot pay), as an order is', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    const setBalance = (cents: number) =>
      request(h.app).post('/v1/test/balance').set(headersFor(caller)).set('Idempotency-Key', key()).send({ available_cents: cents });
    expect((await setBalance(1_000)).status).toBe(200);
    const refused = await topUp(caller, esim.id, 'esim_20GB_30D_EU');
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'balance_insufficient' });
    expect((await esimOf(caller, esim.id)).data_limit_bytes).toBe(5 * GB);
    expect((await bundlesOf(caller, esim.id)).data).toHaveLength(1);

    expect((await setBalance(5_000)).status).toBe(200);
    const topup = await toppedUp(caller, esim.id, 'esim_20GB_30D_EU');
    expect((await h.get(caller, '/v1/balance')).body).toMatchObject({ available_cents: 1_001, simulated: true });
    const moved = (await h.get(caller, `/v1/balance_transactions?source=${topup.id}`)).body as List<{ type: string; amount_cents: number }>;
    expect(moved.data).toEqual([expect.objectContaining({ type: 'topup', amount_cents: -3_999, source: topup.id })]);
  });

  it('answers a retry with the same Idempotency-Key with the same top-up, adding the bundle once', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    const idempotencyKey = key();
    const first = await topUp(caller, esim.id, 'esim_5GB_30D_EU', idempotencyKey);
    const again = await topUp(caller, esim.id, 'esim_5GB_30D_EU', idempotencyKey);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await esimOf(caller, esim.id)).data_limit_bytes).toBe(10 * GB);
  });

  it('refuses a cancelled eSIM (409), an unknown or incompatible bundle (400, param bundle), a wrong body, with the error object', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    const unknown = await topUp(caller, esim.id, 'esim_9GB_9D_NOWHERE');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', param: 'bundle' });
    const incompatible = await topUp(caller, esim.id, 'esim_1GB_7D_US');
    expect(incompatible.status).toBe(400);
    expect(incompatible.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    const unlimited = await topUp(caller, esim.id, 'esim_UL_15D_EU');
    expect(unlimited.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    const missing = await request(h.app).post(`/v1/esim/${esim.id}/topups`).set(headersFor(caller)).set('Idempotency-Key', key()).send({});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_parameter', param: 'bundle' });
    const wrongType = await topUp(caller, esim.id, 5);
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    expect((await topUp(caller, 'esim_01m7q5cqg0m9s346q3d25vt4f5', 'esim_5GB_30D_EU')).body.error).toMatchObject({ code: 'resource_not_found' });

    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    const cancelled = await topUp(caller, esim.id, 'esim_5GB_30D_EU');
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error).toMatchObject({ code: 'invalid_state_transition' });
    expect(cancelled.body.error.message).toContain('cancelled');
    expect(await esimOf(caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'cancelled', data_limit_bytes: 5 * GB });
    expect((await bundlesOf(caller, esim.id)).data.map((b) => b.state)).toEqual(['expired']);
  });
});

// A live eSIM's top-ups are tested over the vendors' fakes in live-topups.test.ts and live-topups-airalo.test.ts (records 0245-0248).
