import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isValidIccid } from '../src/domain/iccid.ts';
import { INTERNAL_TOKEN, headersFor, newCaller, startCatalogue, type CatalogueHarness } from './support.ts';

let h: CatalogueHarness;
let unconfigured: CatalogueHarness;
let fragile: CatalogueHarness;
beforeAll(async () => {
  h = await startCatalogue();
  unconfigured = await startCatalogue({ supplier: false, sharing: h });
  // Fails fast: short timeout, no retries, the breaker opens after 2 failures.
  fragile = await startCatalogue({
    sharing: h,
    env: { SUPPLIER_TIMEOUT_MS: '150', SUPPLIER_RETRIES: '0', SUPPLIER_BREAKER_THRESHOLD: '2' },
  });
});
afterAll(async () => {
  await unconfigured.close();
  await fragile.close();
  await h.close();
});
afterEach(() => {
  h.supplier?.reset();
  fragile.supplier?.reset();
});

const live = newCaller('live');
const test = newCaller('test');
const supplierOf = (harness: CatalogueHarness) => {
  if (!harness.supplier) throw new Error('no fake supplier');
  return harness.supplier;
};

describe('live catalogue failures', () => {
  it('answers 503 supplier_unavailable until a supplier is configured', async () => {
    const res = await request(unconfigured.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
    // The sandbox does not depend on a supplier.
    expect((await request(unconfigured.app).get('/v1/esim/bundles').set(headersFor(test))).status).toBe(200);
  });

  it('answers 503 supplier_unavailable when the supplier’s catalogue is down', async () => {
    supplierOf(h).state.faults.catalogue = 'down';
    const res = await request(h.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
    // Idempotent reads are retried before giving up: 1 call + 2 retries.
    expect(supplierOf(h).state.requests.get('GET /v1/catalogue')).toBe(3);
  });

  it('answers 503 pricing_unavailable when only the prices are down', async () => {
    supplierOf(h).state.faults.prices = 'down';
    const res = await request(h.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'pricing_unavailable' });
  });

  it('rides out a passing failure with a retry', async () => {
    supplierOf(h).state.faults.failNext = 1;
    const res = await request(h.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    // The live catalogue follows the supplier: nobody may keep the answer.
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('times out a slow supplier', async () => {
    supplierOf(fragile).state.faults.latencyMs = 1_000;
    const res = await request(fragile.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
  });
});

describe('the circuit breaker', () => {
  it('stops calling a failing supplier, and fails fast', async () => {
    const supplier = supplierOf(fragile);
    supplier.state.faults.catalogue = 'down';
    supplier.state.faults.prices = 'down';
    for (let i = 0; i < 2; i += 1) {
      expect((await request(fragile.app).get('/v1/esim/bundles').set(headersFor(live))).status).toBe(503);
    }
    const before = supplier.state.requests.get('GET /v1/catalogue') ?? 0;
    supplier.state.faults = { ...supplier.state.faults, catalogue: 'ok', prices: 'ok' };
    const res = await request(fragile.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
    expect(supplier.state.requests.get('GET /v1/catalogue') ?? 0).toBe(before);
  });
});

describe('GET /internal/bundles/:name', () => {
  const get = (name: string, caller = test) => request(h.app).get(`/internal/bundles/${name}`).set(headersFor(caller));

  it('finds a sandbox bundle for a test caller', async () => {
    const res = await get('esim_5GB_30D_EU');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'esim_5GB_30D_EU', data_mb: 5_000, duration_days: 30, retired: false, simulated: true, environments: ['test'] });
  });

  it('finds retired bundles too, marked retired', async () => {
    const res = await get('esim_2GB_14D_EU_LEGACY');
    expect(res.status).toBe(200);
    expect(res.body.retired).toBe(true);
  });

  it('answers 404 for an unknown bundle', async () => {
    const res = await get('esim_9GB_9D_XX');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
  });

  it('prices a live bundle from the supplier', async () => {
    const res = await get('esim_5GB_30D_EU', live);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ simulated: false, rated: true, retired: false, environments: ['test', 'live'] });
    expect(res.body.price_cents % 100).toBe(99);
  });

  it('tells a live caller a bundle exists only in the sandbox', async () => {
    const res = await get('esim_1GB_3D_US_DEMO', live);
    expect(res.status).toBe(200);
    expect(res.body.environments).toEqual(['test']);
  });

  it('answers the supplier failure for a live caller', async () => {
    supplierOf(h).state.faults.prices = 'down';
    const res = await get('esim_5GB_30D_EU', live);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('pricing_unavailable');
  });

  it('refuses a call without the internal token', async () => {
    const res = await request(h.app).get('/internal/bundles/esim_5GB_30D_EU');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('key_invalid');
  });
});

describe('POST /internal/supply/orders', () => {
  const order = (body: object, caller = test, harness = h) =>
    request(harness.app).post('/internal/supply/orders').set(headersFor(caller)).send(body);

  it('makes sandbox profiles that can never install', async () => {
    const res = await order({ reference: 'ord_test1', bundle: 'esim_5GB_30D_EU', quantity: 3 });
    expect(res.status).toBe(200);
    expect(res.body.profiles).toHaveLength(3);
    for (const p of res.body.profiles as { iccid: string; smdp_address: string; matching_id: string }[]) {
      expect(isValidIccid(p.iccid)).toBe(true);
      expect(p.smdp_address).toBe('sandbox.smdp.invalid');
      expect(p.matching_id).toMatch(/^TEST-[A-Z0-9]{20}$/);
    }
  });

  it('buys live profiles from the supplier, once per reference', async () => {
    const body = { reference: 'ord_live1', bundle: 'esim_5GB_30D_EU', quantity: 2 };
    const first = await order(body, live);
    expect(first.status).toBe(200);
    expect(first.body.profiles).toHaveLength(2);
    for (const p of first.body.profiles as { iccid: string; smdp_address: string }[]) {
      expect(isValidIccid(p.iccid)).toBe(true);
      expect(p.iccid.slice(5, 7)).toBe('42');
      expect(p.smdp_address).not.toMatch(/\.invalid$/);
    }
    const again = await order(body, live);
    expect(again.body.profiles).toEqual(first.body.profiles);
  });

  it('answers 503 supplier_refused when the supplier says no or is down', async () => {
    for (const fault of ['refuse', 'down'] as const) {
      supplierOf(h).state.faults.orders = fault;
      const res = await order({ reference: `ord_${fault}`, bundle: 'esim_5GB_30D_EU', quantity: 1 }, live);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_refused' });
    }
  });

  it('answers 503 supplier_refused until a supplier is configured', async () => {
    const res = await order({ reference: 'ord_x', bundle: 'esim_5GB_30D_EU', quantity: 1 }, live, unconfigured);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_refused');
  });

  it('maps an unknown and a retired bundle', async () => {
    const unknown = await order({ reference: 'ord_u', bundle: 'esim_1GB_3D_US_DEMO', quantity: 1 }, live);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    const retired = await order({ reference: 'ord_r', bundle: 'esim_2GB_14D_EU_LEGACY', quantity: 1 }, live);
    expect(retired.status).toBe(409);
    expect(retired.body.error.code).toBe('capability_not_orderable');
  });

  it('validates its body', async () => {
    const res = await order({ reference: 'ord_v', bundle: 'esim_5GB_30D_EU', quantity: 11 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'quantity' });
  });
});

describe('POST /internal/supply/sandbox-profiles', () => {
  const stock = (body: object, caller = test) => request(h.app).post('/internal/supply/sandbox-profiles').set(headersFor(caller)).send(body);

  it('makes up to 100 distinct sandbox profiles that can never install', async () => {
    const res = await stock({ bundle: 'esim_5GB_30D_EU', count: 100 });
    expect(res.status).toBe(200);
    const profiles = res.body.profiles as { iccid: string; smdp_address: string; matching_id: string }[];
    expect(profiles).toHaveLength(100);
    expect(new Set(profiles.map((p) => p.iccid)).size).toBe(100);
    for (const p of profiles) {
      expect(isValidIccid(p.iccid)).toBe(true);
      expect(p.smdp_address).toBe('sandbox.smdp.invalid');
      expect(p.matching_id).toMatch(/^TEST-[A-Z0-9]{20}$/);
    }
  });

  it('is for test identities only, and never asks the live supplier', async () => {
    const supplierCalls = () => [...supplierOf(h).state.requests.values()].reduce((sum, n) => sum + n, 0);
    const before = supplierCalls();
    const res = await stock({ bundle: 'esim_5GB_30D_EU', count: 5 }, live);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('live_key_test_resource');
    expect(supplierCalls()).toBe(before);
  });

  it('refuses a bundle the sandbox does not know, and a count out of range', async () => {
    const unknown = await stock({ bundle: 'esim_404GB_1D_XX', count: 5 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    for (const count of [0, 101, 2.5]) {
      const res = await stock({ bundle: 'esim_5GB_30D_EU', count });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'count' });
    }
  });
});

describe('suspend and resume at the supplier', () => {
  async function liveIccid(): Promise<string> {
    const res = await request(h.app)
      .post('/internal/supply/orders')
      .set(headersFor(live))
      .send({ reference: `ord_${Math.random().toString(36).slice(2)}`, bundle: 'esim_3GB_30D_FR', quantity: 1 });
    return res.body.profiles[0].iccid as string;
  }
  const act = (iccid: string, action: string) =>
    request(h.app).post(`/internal/supply/profiles/${iccid}/${action}`).set(headersFor(live)).send({});

  it('suspends and resumes a live profile', async () => {
    const iccid = await liveIccid();
    expect((await act(iccid, 'suspend')).body).toEqual({ iccid, status: 'suspended' });
    expect(supplierOf(h).state.profiles.get(iccid)?.status).toBe('suspended');
    expect((await act(iccid, 'resume')).body).toEqual({ iccid, status: 'active' });
    expect(supplierOf(h).state.profiles.get(iccid)?.status).toBe('active');
  });

  it('maps what the supplier cannot do and when it is down', async () => {
    const iccid = await liveIccid();
    supplierOf(h).state.faults.profiles = 'unsupported';
    const unsupported = await act(iccid, 'suspend');
    expect(unsupported.status).toBe(409);
    expect(unsupported.body.error.code).toBe('capability_not_orderable');
    supplierOf(h).state.faults.profiles = 'down';
    const down = await act(iccid, 'resume');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('supplier_unavailable');
  });
});

describe('cancelling (terminating) at the supplier', () => {
  async function liveIccid(): Promise<string> {
    const res = await request(h.app)
      .post('/internal/supply/orders')
      .set(headersFor(live))
      .send({ reference: `ord_${Math.random().toString(36).slice(2)}`, bundle: 'esim_3GB_30D_FR', quantity: 1 });
    return res.body.profiles[0].iccid as string;
  }
  const terminate = (iccid: string) => request(h.app).post(`/internal/supply/profiles/${iccid}/terminate`).set(headersFor(live)).send({});

  it('terminates a live profile for good, and again without harm', async () => {
    const iccid = await liveIccid();
    expect((await terminate(iccid)).body).toEqual({ iccid, status: 'terminated' });
    expect(supplierOf(h).state.profiles.get(iccid)?.status).toBe('terminated');
    expect((await terminate(iccid)).status).toBe(200);
    const resume = await request(h.app).post(`/internal/supply/profiles/${iccid}/resume`).set(headersFor(live)).send({});
    expect(resume.status).toBe(409);
    expect(resume.body.error.code).toBe('capability_not_orderable');
  });

  it('maps what the supplier cannot do and when it is down', async () => {
    const iccid = await liveIccid();
    supplierOf(h).state.faults.profiles = 'unsupported';
    const unsupported = await terminate(iccid);
    expect(unsupported.status).toBe(409);
    expect(unsupported.body.error).toMatchObject({ code: 'capability_not_orderable', message: 'The supplier cannot cancel this eSIM.' });
    supplierOf(h).state.faults.profiles = 'down';
    const down = await terminate(iccid);
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('supplier_unavailable');
    expect(supplierOf(h).state.profiles.get(iccid)?.status).toBe('active');
  });

  it('answers supplier_unavailable until a supplier is configured', async () => {
    const res = await request(unconfigured.app).post('/internal/supply/profiles/8988299000000000000/terminate').set(headersFor(live)).send({});
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
  });
});

describe('the operator’s live-ordering switch', () => {
  const operator = () => ({ 'x-internal-token': INTERNAL_TOKEN });
  const setLiveOrdering = (accountId: string, enabled: unknown) =>
    request(h.app).put(`/internal/accounts/${accountId}/live-ordering`).set(operator()).send({ enabled });

  it('is on for an account never set', async () => {
    const caller = newCaller('live');
    const res = await request(h.app).get(`/internal/accounts/${caller.accountId}/live-ordering`).set(operator());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'live_ordering', account_id: caller.accountId, enabled: true, updated_at: null });
  });

  it('off: the live catalogue, live bundles and live supply answer 409 capability_not_orderable', async () => {
    const caller = newCaller('live');
    const off = await setLiveOrdering(caller.accountId, false);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ object: 'live_ordering', account_id: caller.accountId, enabled: false });
    const before = supplierOf(h).state.requests.get('GET /v1/catalogue') ?? 0;

    const listed = await request(h.app).get('/v1/esim/bundles').set(headersFor(caller));
    expect(listed.status).toBe(409);
    expect(listed.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
    expect((await request(h.app).get('/internal/bundles/esim_3GB_30D_FR').set(headersFor(caller))).body.error.code).toBe('capability_not_orderable');
    const supply = await request(h.app).post('/internal/supply/orders').set(headersFor(caller)).send({ reference: 'ord_switched_off', bundle: 'esim_3GB_30D_FR', quantity: 1 });
    expect(supply.body.error.code).toBe('capability_not_orderable');
    // Refused before the supplier is asked anything.
    expect(supplierOf(h).state.requests.get('GET /v1/catalogue') ?? 0).toBe(before);
    expect(supplierOf(h).state.orders.has('ord_switched_off')).toBe(false);

    // Only live: the account's sandbox is untouched. Other accounts are untouched.
    expect((await request(h.app).get('/v1/esim/bundles').set(headersFor(newCaller('test', caller.accountId)))).status).toBe(200);
    expect((await request(h.app).get('/v1/esim/bundles').set(headersFor(newCaller('live')))).status).toBe(200);

    expect((await setLiveOrdering(caller.accountId, true)).body.enabled).toBe(true);
    expect((await request(h.app).get('/v1/esim/bundles').set(headersFor(caller))).status).toBe(200);
  });

  it('validates the switch and needs the internal token', async () => {
    const caller = newCaller('live');
    const bad = await setLiveOrdering(caller.accountId, 'off');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'enabled' });
    const missing = await request(h.app).put(`/internal/accounts/${caller.accountId}/live-ordering`).set(operator()).send({});
    expect(missing.body.error).toMatchObject({ code: 'missing_parameter', param: 'enabled' });
    expect((await request(h.app).put(`/internal/accounts/${caller.accountId}/live-ordering`).send({ enabled: false })).status).toBe(401);
  });

  it('is out of reach of a call made for an API key (as a steered public request would be): 404, nothing changed', async () => {
    const caller = newCaller('live');
    const steered = await request(h.app).put(`/internal/accounts/${caller.accountId}/live-ordering`).set(headersFor(caller)).send({ enabled: false });
    expect(steered.status).toBe(404);
    expect(steered.body.error).toMatchObject({ code: 'no_such_route' });
    expect((await request(h.app).get(`/internal/accounts/${caller.accountId}/live-ordering`).set(headersFor(caller))).status).toBe(404);
    expect((await request(h.app).get(`/internal/accounts/${caller.accountId}/live-ordering`).set(operator())).body.enabled).toBe(true);
  });
});
