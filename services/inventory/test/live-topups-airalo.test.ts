import type { Bundle, Esim, EsimBundle, List, Topup } from '@connectivity/contracts';
import { assertNoViolations, type AiraloFake } from '@connectivity/fake-suppliers';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auditVendorOrders, idempotencyKey as key, liveCalls, sleep, SLOW_MS, startMoneyHarness, WINDOW_MS } from './live-calls.ts';
import { VENDOR_BUNDLES, type LiveHarness } from './live-vendors.ts';
import { eventually, type Caller } from './support.ts';
import { settleAbandonedIntents } from './unrecorded-purchase.ts';

/**
 * Live top-ups at Airalo (record 0248), against its fake served from the vendor's top-up document: the
 * offers Airalo lists for the eSIM, one `POST /v2/orders/topups` under a hold taken before it is asked,
 * carrying the top-up's id as its description (what finds it again when its answer was lost), never
 * bought twice however slow Airalo is. Every request our adapter sent is checked against the document.
 */
const TOPUP_BUNDLE = 'change-7days-1gb-topup';
const TOPUP_PATH = '/v2/orders/topups';
/** Airalo's gigabyte (record 0231): 1024 MB of 1024 x 1024 bytes. */
const GIB = 1024 * 1024 * 1024;

describe('live top-ups at airalo', () => {
  let h: LiveHarness;
  const calls = liveCalls(() => h);
  const { balanceOf, transactionsOf } = calls;
  const fake = () => h.fake as AiraloFake;
  const purchases = () => fake().control.counters().purchases;
  /** The packages Airalo holds on the eSIM, its own first. */
  const packagesAtVendor = (iccid: string) => {
    const sim = fake().control.state().sims[iccid]!;
    return [sim.package_id, ...(sim.topups ?? []).map((t) => t.package_id)];
  };
  const ordersDescribed = (description: string) =>
    fake()
      .control.state()
      .orders.filter((o) => o.description === description);
  let price = 0;

  beforeAll(async () => {
    ({ harness: h, price } = await startMoneyHarness('airalo', { SUPPLIER_RECONCILE_INTERVAL_MS: '500' }));
  });
  afterAll(async () => {
    await h?.close();
  });
  // Every request our adapter sent matched Airalo's published documents.
  afterEach(() => assertNoViolations(h.fake));

  const liveEsim = async (caller: Caller): Promise<Esim> => {
    const res = await h.order(caller, { bundle: VENDOR_BUNDLES.airalo, quantity: 1 }, key());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as { esims: Esim[] }).esims[0]!;
  };

  /**
   * A funded account's live eSIM topped up while Airalo answers the top-up order late (the order made, its
   * answer past our timeout): 503 with Retry-After, the price held. The fault stays on for the caller to clear.
   */
  const topUpWhileAiraloIsLate = async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const idempotencyKey = key();
    await fake().control.fault({ kind: 'late', delayMs: SLOW_MS, path: TOPUP_PATH });
    const first = await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey);
    expect(first.status).toBe(503);
    expect(first.body.error).toMatchObject({ code: 'supplier_unavailable' });
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await balanceOf(caller)).pending_cents).toBe(price);
    return { caller, esim, before, idempotencyKey };
  };

  it('offers for a live eSIM are the packages Airalo lists for it, priced as live orders are', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const res = await calls.get(caller, `/v1/esim/${esim.id}/topups`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const offers = (res.body as List<Bundle>).data;
    // The top-up package costs what the eSIM's own does (USD 1.80): our price over it is the same.
    expect(offers).toEqual([
      expect.objectContaining({ name: TOPUP_BUNDLE, price_cents: price, data_mb: 1024, duration_days: 7, countries: ['US'], rated: true }),
    ]);
  });

  it('a live top-up: one order at Airalo carrying its id, the hold captured, the data added, listed, `esim.topped_up`', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    expect(esim.data_limit_bytes).toBe(GIB);
    const before = purchases();
    const res = await calls.topUp(caller, esim.id, TOPUP_BUNDLE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const topup = res.body as Topup;
    expect(topup).toMatchObject({ object: 'topup', bundle: TOPUP_BUNDLE, price_cents: price, currency: 'USD' });
    expect(purchases()).toBe(before + 1);
    expect(ordersDescribed(topup.id)).toHaveLength(1);
    expect(packagesAtVendor(esim.iccid)).toEqual([VENDOR_BUNDLES.airalo, TOPUP_BUNDLE]);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
    expect(await transactionsOf(caller)).toContainEqual(expect.objectContaining({ type: 'topup', amount_cents: -price, source: topup.id }));
    expect(((await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim).data_limit_bytes).toBe(2 * GIB);
    const bundles = (await calls.get(caller, `/v1/esim/${esim.id}/bundles`)).body as List<EsimBundle>;
    expect(bundles.data.map((b) => [b.bundle, b.topup, b.data_limit_bytes])).toEqual([
      [VENDOR_BUNDLES.airalo, null, GIB],
      [TOPUP_BUNDLE, topup.id, GIB],
    ]);
    await eventually(() => expect(h.eventsOf(esim.id)).toContain('esim.topped_up'), 10_000);
  });

  it('revives an eSIM whose data ran out at Airalo: active again, the vendor’s eSIM too', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    await fake().control.attach(esim.iccid);
    await fake().control.deplete(esim.iccid);
    await eventually(async () => {
      const now = (await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
      expect(now).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted' });
    }, 20_000);
    const res = await calls.topUp(caller, esim.id, TOPUP_BUNDLE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim).toMatchObject({ state: 'active', expired_reason: null, data_limit_bytes: 2 * GIB });
    expect(fake().control.esim(esim.iccid)?.usage).toMatchObject({ status: 'ACTIVE', total: 2048, remaining: 1024 });
    await eventually(() => expect(h.eventsOf(esim.id)).toContain('esim.topped_up'), 10_000);
  });

  it('a slow Airalo (the order made, its answer late) with an immediate retry of the same key: 503 with Retry-After, then one purchase, recorded once', async () => {
    try {
      const { caller, esim, before, idempotencyKey } = await topUpWhileAiraloIsLate();
      // Airalo made it: the retry finds the order by its description and records it, buying nothing.
      const retried = await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey);
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      const topup = retried.body as Topup;
      expect(purchases()).toBe(before + 1);
      expect(ordersDescribed(topup.id)).toHaveLength(1);
      expect(packagesAtVendor(esim.iccid)).toEqual([VENDOR_BUNDLES.airalo, TOPUP_BUNDLE]);
      expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
      await sleep(WINDOW_MS);
      expect(purchases()).toBe(before + 1);
      expect(((await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey)).body as Topup).id).toBe(topup.id);
    } finally {
      await fake().control.clearFaults();
    }
  });

  it('a slow Airalo that makes the top-up while nobody retries: the worker records it from its intent (record 0259), a late retry answers it', async () => {
    let started;
    try {
      started = await topUpWhileAiraloIsLate();
    } finally {
      await fake().control.clearFaults();
    }
    const { caller, esim, before, idempotencyKey } = started;
    await sleep(WINDOW_MS);
    await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
    const held = (await transactionsOf(caller)).find((t) => t.type === 'topup');
    expect(held).toMatchObject({ amount_cents: -price });
    const bundles = (await calls.get(caller, `/v1/esim/${esim.id}/bundles`)).body as List<EsimBundle>;
    expect(bundles.data.map((b) => b.topup)).toContain(held!.source);
    const retried = await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((retried.body as Topup).id).toBe(held!.source);
    expect(purchases()).toBe(before + 1);
    expect(packagesAtVendor(esim.iccid)).toEqual([VENDOR_BUNDLES.airalo, TOPUP_BUNDLE]);
  });

  it('an order Airalo answers 503 and never makes: a retry while in doubt is 503 with Retry-After; after the window the hold is given back', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const idempotencyKey = key();
    await fake().control.fault({ kind: 'status', status: 503, count: 1, path: TOPUP_PATH });
    const first = await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey);
    expect(first.status).toBe(503);
    expect(first.body.error).toMatchObject({ code: 'supplier_unavailable' });
    await fake().control.clearFaults();
    const retried = await calls.topUp(caller, esim.id, TOPUP_BUNDLE, idempotencyKey);
    expect(retried.status).toBe(503);
    expect(retried.body.error).toMatchObject({ code: 'supplier_unavailable' });
    expect(Number(retried.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await balanceOf(caller)).pending_cents).toBe(price);
    await sleep(WINDOW_MS);
    await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 9 * price, pending_cents: 0 });
    expect((await transactionsOf(caller)).map((t) => t.type)).toContain('topup_release');
    expect(purchases()).toBe(before);
    expect(packagesAtVendor(esim.iccid)).toEqual([VENDOR_BUNDLES.airalo]);
  });

  it('refuses with the error object, nothing bought or held: an unknown bundle, no Idempotency-Key, a cancelled eSIM', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const unknown = await calls.topUp(caller, esim.id, 'change-30days-10gb-topup');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', param: 'bundle' });
    const keyless = await request(h.app).post(`/v1/esim/${esim.id}/topups`).set(calls.headersOf(caller)).send({ bundle: TOPUP_BUNDLE });
    expect(keyless.status).toBe(400);
    expect(keyless.body.error).toMatchObject({ code: 'idempotency_key_required' });
    const cancel = await request(h.app).patch(`/v1/esim/${esim.id}`).set(calls.headersOf(caller)).set('Idempotency-Key', key()).send({ state: 'expired' });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const cancelled = await calls.topUp(caller, esim.id, TOPUP_BUNDLE);
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error).toMatchObject({ code: 'invalid_state_transition' });
    expect(purchases()).toBe(before);
    expect(packagesAtVendor(esim.iccid)).toEqual([VENDOR_BUNDLES.airalo]);
    expect((await balanceOf(caller)).pending_cents).toBe(0);
  });

  it('the audit of Airalo’s orders (record 0161) leaves a topped-up eSIM alone: a top-up order is no order of profiles', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const topup = await calls.topUp(caller, esim.id, TOPUP_BUNDLE);
    expect(topup.status, JSON.stringify(topup.body)).toBe(201);
    await sleep(1_100);
    await auditVendorOrders(h);
    expect(await h.db.knex('inventory.supplier_releases').where('reason', 'like', 'orphan %')).toEqual([]);
    expect(((await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim).state).not.toBe('expired');
  });
});
