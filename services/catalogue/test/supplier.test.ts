import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNoViolations, startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isValidIccid } from '../src/domain/iccid.ts';
import { INTERNAL_TOKEN, headersFor, newCaller, startCatalogue, type CatalogueHarness } from './support.ts';

let h: CatalogueHarness<EsimGoFake>;
let unconfigured: CatalogueHarness;
let fragile: CatalogueHarness;
beforeAll(async () => {
  h = await startCatalogue<EsimGoFake>({ supplier: 'esim-go' });
  unconfigured = await startCatalogue({ supplier: false, sharing: h });
  // Fails fast: short timeout, no retries.
  fragile = await startCatalogue({ supplier: h.supplier, sharing: h, env: { SUPPLIER_TIMEOUT_MS: '150', SUPPLIER_RETRIES: '0' } });
});
afterAll(async () => {
  await unconfigured.close();
  await fragile.close();
  await h.close();
});
afterEach(async () => {
  assertNoViolations(h.supplier);
  await h.supplier.control.resetObservations();
});

const live = newCaller('live');
const test = newCaller('test');
const calls = (key: string) => h.supplier.control.counters().calls[key] ?? 0;
const allCalls = () => Object.values(h.supplier.control.counters().calls).reduce((sum, n) => sum + n, 0);
const LIVE_BUNDLE = 'esim_3GB_30D_GB_V2';

describe('live catalogue failures', () => {
  it('answers 503 supplier_unavailable until a supplier is configured', async () => {
    const res = await request(unconfigured.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
    // The sandbox does not depend on a supplier.
    expect((await request(unconfigured.app).get('/v1/esim/bundles').set(headersFor(test))).status).toBe(200);
  });

  it('answers 503 supplier_unavailable when the vendor fails, after retrying the reads', async () => {
    await h.supplier.control.fault({ kind: 'status', status: 502, count: 100 });
    const res = await request(h.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
    // Idempotent reads are retried before giving up: 1 call + 2 retries.
    expect(calls('GET /organisation')).toBe(3);
  });

  it('answers 503 pricing_unavailable when the vendor prices in another currency', async () => {
    // The fake keeps its organisation in a state file: one in GBP.
    const dir = mkdtempSync(join(tmpdir(), 'esim-go-'));
    const seed = await startEsimGoFake();
    const state = { ...seed.control.state(), organisation: { ...seed.control.state().organisation, currency: 'GBP' } };
    await seed.close();
    writeFileSync(join(dir, 'state.json'), JSON.stringify(state));
    const gbp = await startEsimGoFake({ stateFile: join(dir, 'state.json'), apiKey: 'gbp-key-0123456789' });
    const inGbp = await startCatalogue({ supplier: gbp, sharing: h });
    try {
      const res = await request(inGbp.app).get('/v1/esim/bundles').set(headersFor(live));
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'capability', code: 'pricing_unavailable' });
      const bundle = await request(inGbp.app).get(`/internal/bundles/${LIVE_BUNDLE}`).set(headersFor(live));
      expect(bundle.body.error.code).toBe('pricing_unavailable');
    } finally {
      await inGbp.close();
      await gbp.close();
    }
  });

  it('rides out a passing failure with a retry', async () => {
    await h.supplier.control.fault({ kind: 'status', status: 503, count: 1 });
    const res = await request(h.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    // The live catalogue follows the supplier: nobody may keep the answer.
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('times out a slow supplier', async () => {
    await h.supplier.control.fault({ kind: 'slow', delayMs: 1_000 });
    const res = await request(fragile.app).get('/v1/esim/bundles').set(headersFor(live));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
    await h.supplier.control.clearFaults();
    // The abandoned request is still held by the fake; let it finish before the next test sets
    // faults, or it would take one of them.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
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
    const res = await get(LIVE_BUNDLE, live);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ simulated: false, rated: true, retired: false, environments: ['live'] });
    expect(res.body.price_cents % 100).toBe(99);
  });

  it('tells a live caller a bundle exists only in the sandbox', async () => {
    const res = await get('esim_1GB_3D_US_DEMO', live);
    expect(res.status).toBe(200);
    expect(res.body.environments).toEqual(['test']);
  });

  it('answers the supplier failure for a live caller', async () => {
    await h.supplier.control.fault({ kind: 'status', status: 500, count: 100 });
    const res = await get(LIVE_BUNDLE, live);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_unavailable');
  });

  it('refuses a call without the internal token', async () => {
    const res = await request(h.app).get('/internal/bundles/esim_5GB_30D_EU');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('key_invalid');
  });
});

describe('POST /internal/supply/orders', () => {
  const order = (body: object, caller = test, harness: CatalogueHarness = h) =>
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

  it('buys live profiles from the supplier, one purchase per call', async () => {
    const first = await order({ reference: 'ord_live1', bundle: LIVE_BUNDLE, quantity: 2 }, live);
    expect(first.status).toBe(200);
    expect(first.body.profiles).toHaveLength(2);
    for (const p of first.body.profiles as { iccid: string; smdp_address: string }[]) {
      expect(p.iccid).toMatch(/^\d{19}$/);
      expect(p.smdp_address).not.toMatch(/\.invalid$/);
    }
    expect(h.supplier.control.counters()).toMatchObject({ purchases: 1, esimsSold: 2 });
  });

  it('answers in doubt when the vendor answered the purchase with a 5xx, and 503 supplier_unavailable when it would not start (429) within the call’s time', async () => {
    await h.supplier.control.fault({ kind: 'status', status: 503, count: 1 });
    const doubtful = await order({ reference: 'ord_503', bundle: LIVE_BUNDLE, quantity: 1 }, live);
    expect(doubtful.status).toBe(202);
    expect(doubtful.body).toMatchObject({ outcome: 'in_doubt', vendor_request_id: null });
    expect(doubtful.body.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(doubtful.body.settles_within_seconds).toBeGreaterThanOrEqual(1);
    // The vendor refuses every try: a second 429 after its Retry-After (1 s) leaves no time for a third in 2 s.
    await h.supplier.control.fault({ kind: 'status', status: 429, count: 5 });
    const refused = await order({ reference: 'ord_429', bundle: LIVE_BUNDLE, quantity: 1 }, live);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(h.supplier.control.counters().purchases).toBe(0);
    await h.supplier.control.clearFaults();
  });

  it('waits out a 429 whose Retry-After ends within the call’s time, and buys once (record 0279)', async () => {
    await h.supplier.control.fault({ kind: 'status', status: 429, count: 1 });
    const started = Date.now();
    const res = await order({ reference: 'ord_429_once', bundle: LIVE_BUNDLE, quantity: 1 }, live);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(h.supplier.control.counters()).toMatchObject({ purchases: 1, esimsSold: 1 });
  });

  it('answers 503 supplier_refused where the vendor says no', async () => {
    const poor = await startEsimGoFake({ balance: 0 });
    const broke = await startCatalogue({ supplier: poor, sharing: h });
    try {
      const res = await order({ reference: 'ord_poor', bundle: LIVE_BUNDLE, quantity: 1 }, live, broke);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_refused' });
      expect(poor.control.counters().purchases).toBe(0);
      assertNoViolations(poor);
    } finally {
      await broke.close();
      await poor.close();
    }
  });

  it('answers 503 supplier_refused until a supplier is configured', async () => {
    const res = await order({ reference: 'ord_x', bundle: LIVE_BUNDLE, quantity: 1 }, live, unconfigured);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_refused');
  });

  it('maps a bundle the vendor does not sell', async () => {
    const unknown = await order({ reference: 'ord_u', bundle: 'esim_1GB_3D_US_DEMO', quantity: 1 }, live);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
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
    const before = allCalls();
    const res = await stock({ bundle: 'esim_5GB_30D_EU', count: 5 }, live);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('live_key_test_resource');
    expect(allCalls()).toBe(before);
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

describe('profile actions without a supplier', () => {
  it('answer supplier_unavailable until a supplier is configured', async () => {
    for (const action of ['suspend', 'resume', 'terminate']) {
      const res = await request(unconfigured.app).post(`/internal/supply/profiles/8988299000000000000/${action}`).set(headersFor(live)).send({});
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('supplier_unavailable');
    }
    const report = await request(unconfigured.app).get('/internal/supply/profiles/8988299000000000000').set(headersFor(live));
    expect(report.body.error.code).toBe('supplier_unavailable');
  });

  it('a test caller’s profiles are the sandbox’s: no order to find, no report', async () => {
    expect((await request(h.app).get('/internal/supply/orders/ord_test1').set(headersFor(test))).status).toBe(404);
    expect((await request(h.app).get('/internal/supply/profiles/8988299000000000000').set(headersFor(test))).status).toBe(404);
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
    const before = allCalls();

    const listed = await request(h.app).get('/v1/esim/bundles').set(headersFor(caller));
    expect(listed.status).toBe(409);
    expect(listed.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
    expect((await request(h.app).get(`/internal/bundles/${LIVE_BUNDLE}`).set(headersFor(caller))).body.error.code).toBe('capability_not_orderable');
    const supply = await request(h.app)
      .post('/internal/supply/orders')
      .set(headersFor(caller))
      .send({ reference: 'ord_switched_off', bundle: LIVE_BUNDLE, quantity: 1 });
    expect(supply.body.error.code).toBe('capability_not_orderable');
    // Refused before the supplier is asked anything.
    expect(allCalls()).toBe(before);

    // Only live: the account's sandbox is untouched. Other accounts are untouched.
    expect(
      (
        await request(h.app)
          .get('/v1/esim/bundles')
          .set(headersFor(newCaller('test', caller.accountId)))
      ).status,
    ).toBe(200);
    expect(
      (
        await request(h.app)
          .get('/v1/esim/bundles')
          .set(headersFor(newCaller('live')))
      ).status,
    ).toBe(200);

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
