import type { Bundle, Esim, List, Topup } from '@connectivity/contracts';
import { assertNoViolations, type EsimGoFake } from '@connectivity/fake-suppliers';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey as key, liveCalls, sleep, SLOW_MS, startMoneyHarness, WINDOW_MS } from './live-calls.ts';
import { VENDOR_BUNDLES, type LiveHarness } from './live-vendors.ts';
import { eventually, type Caller } from './support.ts';
import { settleAbandonedIntents } from './unrecorded-purchase.ts';

/**
 * Live top-ups against eSIM Go's fake (records 0245-0247): offers the vendor says the profile can take,
 * one purchase under a hold taken before the vendor is asked, in doubt never bought twice, a vendor that
 * is down. Airalo's are in live-topups-airalo.test.ts (record 0248).
 */

describe('live top-ups at esim-go', () => {
  let h: LiveHarness;
  const bundle = VENDOR_BUNDLES['esim-go'];
  const calls = liveCalls(() => h);
  const { balanceOf, transactionsOf } = calls;
  const purchases = () => h.fake.control.counters().purchases;
  let price = 0;

  beforeAll(async () => {
    ({ harness: h, price } = await startMoneyHarness('esim-go'));
  });
  afterAll(async () => {
    await h?.close();
  });
  // Every request our adapter sent matched eSIM Go's published document.
  afterEach(() => assertNoViolations(h.fake));

  /**
   * A live eSIM of `caller`'s, then a wait for the vendor's rate window (eSIM Go: 10 calls a second), so
   * that the top-up that follows has its whole budget.
   */
  const liveEsim = async (caller: Caller): Promise<Esim> => {
    await sleep(1_100);
    const res = await h.order(caller, { bundle, quantity: 1 }, key());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await sleep(1_100);
    return (res.body as { esims: Esim[] }).esims[0]!;
  };
  const assignmentsAtVendor = (iccid: string) =>
    (h.fake as EsimGoFake).control.state().esims[Object.keys((h.fake as EsimGoFake).control.state().esims).find((i) => i.startsWith(iccid))!]!.assignments
      .length;

  /** A funded account's live eSIM topped up while eSIM Go is slow ("processing" for SLOW_MS): the first answer is 503. */
  const topUpOnSlowVendor = async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const idempotencyKey = key();
    await h.fake.control.fault({ kind: 'processing', completeAfterMs: SLOW_MS, count: 1, retryAfterSeconds: 1 });
    const first = await calls.topUp(caller, esim.id, bundle, idempotencyKey);
    expect(first.status).toBe(503);
    expect(first.body.error).toMatchObject({ code: 'supplier_unavailable' });
    return { caller, esim, before, idempotencyKey, first };
  };

  it('offers for a live eSIM are the live bundles that cover its countries, its own among them, priced for live', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const res = await calls.get(caller, `/v1/esim/${esim.id}/topups`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const offers = res.body as List<Bundle>;
    expect(offers.data.map((b) => b.name)).toContain(bundle);
    expect(offers.data.find((b) => b.name === bundle)).toMatchObject({ price_cents: price });
  });

  it('a live top-up: one purchase at eSIM Go on the same profile, the hold captured as a topup transaction', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const res = await calls.topUp(caller, esim.id, bundle);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const topup = res.body as Topup;
    expect(topup).toMatchObject({ object: 'topup', bundle, price_cents: price, currency: 'USD' });
    expect(purchases()).toBe(before + 1);
    expect(assignmentsAtVendor(esim.iccid)).toBe(2);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
    expect(await transactionsOf(caller)).toContainEqual(expect.objectContaining({ type: 'topup', amount_cents: -price, source: topup.id }));
    const after = (await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(after.data_limit_bytes).toBe(2 * esim.data_limit_bytes!);
  });

  it('revives an eSIM whose data ran out at eSIM Go: active again, its data added, `esim.topped_up`', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    await h.fake.control.attach(esim.iccid);
    await h.fake.control.deplete(esim.iccid);
    await eventually(async () => {
      const now = (await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
      expect(now).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted' });
    }, 20_000);
    await sleep(1_100);
    const res = await calls.topUp(caller, esim.id, bundle);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const after = (await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(after).toMatchObject({ state: 'active', expired_reason: null, data_limit_bytes: 2 * esim.data_limit_bytes! });
    expect(assignmentsAtVendor(esim.iccid)).toBe(2);
    await eventually(() => expect(h.eventsOf(esim.id)).toContain('esim.topped_up'), 10_000);
  });

  it('refuses with the error object, nothing bought or held: no Idempotency-Key, a cancelled eSIM', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const keyless = await request(h.app).post(`/v1/esim/${esim.id}/topups`).set(calls.headersOf(caller)).send({ bundle });
    expect(keyless.status).toBe(400);
    expect(keyless.body.error).toMatchObject({ code: 'idempotency_key_required' });
    const cancel = await request(h.app).patch(`/v1/esim/${esim.id}`).set(calls.headersOf(caller)).set('Idempotency-Key', key()).send({ state: 'expired' });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    const cancelled = await calls.topUp(caller, esim.id, bundle);
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error).toMatchObject({ code: 'invalid_state_transition' });
    expect(purchases()).toBe(before);
    expect((await balanceOf(caller)).pending_cents).toBe(0);
  });

  it('a balance for one top-up and five at once, each with its own key: one 201, four 402, one purchase, never negative', async () => {
    const caller = await calls.fund(2 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const answers = await Promise.all(Array.from({ length: 5 }, () => calls.topUp(caller, esim.id, bundle)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 402, 402, 402, 402]);
    for (const res of answers.filter((answer) => answer.status === 402)) expect(res.body.error).toMatchObject({ code: 'balance_insufficient' });
    expect(purchases()).toBe(before + 1);
    expect(assignmentsAtVendor(esim.iccid)).toBe(2);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 0, pending_cents: 0 });
  });

  it('a bundle that is not among the eSIM’s offers: 400 invalid_parameter on `bundle`, nothing bought or held', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const res = await calls.topUp(caller, esim.id, 'esim_no_such_bundle');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
    expect(purchases()).toBe(before);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 9 * price, pending_cents: 0 });
  });

  it('a balance that cannot pay: 402 with nothing bought and nothing held', async () => {
    const caller = await calls.fund(price);
    const esim = await liveEsim(caller);
    const before = purchases();
    const res = await calls.topUp(caller, esim.id, bundle);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'balance_insufficient' });
    expect(purchases()).toBe(before);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 0, pending_cents: 0 });
  });

  it('a slow vendor (eSIM Go’s 503 "processing") with an immediate retry of the same key: one purchase, recorded once', async () => {
    const { caller, esim, before, idempotencyKey, first } = await topUpOnSlowVendor();
    expect(Number(first.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await balanceOf(caller)).pending_cents).toBe(price);
    const retried = await calls.topUp(caller, esim.id, bundle, idempotencyKey);
    expect(retried.status).toBe(503);
    expect(retried.body.error).toMatchObject({ code: 'supplier_unavailable' });
    expect(Number(retried.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await h.fake.control.clearFaults();
    const topup = await eventually(async () => {
      const res = await calls.topUp(caller, esim.id, bundle, idempotencyKey);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Topup;
    }, 15_000);
    expect(purchases()).toBe(before + 1);
    expect(assignmentsAtVendor(esim.iccid)).toBe(2);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
    await sleep(WINDOW_MS);
    expect(purchases()).toBe(before + 1);
    expect(((await calls.topUp(caller, esim.id, bundle, idempotencyKey)).body as Topup).id).toBe(topup.id);
  });

  it('a vendor that never makes it: 503 with Retry-After, and after its window the hold is given back, nothing bought', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    await h.fake.control.fault({ kind: 'processing', completeAfterMs: -1, count: 1, retryAfterSeconds: 1 });
    const res = await calls.topUp(caller, esim.id, bundle);
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'supplier_unavailable' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await h.fake.control.clearFaults();
    expect((await balanceOf(caller)).pending_cents).toBe(price);
    await sleep(WINDOW_MS);
    await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 9 * price, pending_cents: 0 });
    expect((await transactionsOf(caller)).map((t) => t.type)).toContain('topup_release');
    expect(purchases()).toBe(before);
    expect(assignmentsAtVendor(esim.iccid)).toBe(1);
  });

  it('a slow vendor that makes it while nobody retries: the worker records the top-up from its intent, and a late retry answers it', async () => {
    const { caller, esim, before, idempotencyKey } = await topUpOnSlowVendor();
    await h.fake.control.clearFaults();
    await sleep(WINDOW_MS);
    await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId);
    // Recorded as the request would have: the data on the eSIM, the hold captured, the event written.
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
    const topupTransaction = (await transactionsOf(caller)).find((t) => t.type === 'topup');
    expect(topupTransaction).toMatchObject({ amount_cents: -price });
    const after = (await calls.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(after.data_limit_bytes).toBe(2 * esim.data_limit_bytes!);
    const bundles = (await calls.get(caller, `/v1/esim/${esim.id}/bundles`)).body as List<{ topup: string | null }>;
    expect(bundles.data.map((b) => b.topup)).toContain(topupTransaction!.source);
    const events = await h.db
      .knex('inventory.outbox')
      .whereRaw("payload->>'type' = 'esim.topped_up' and payload->'data'->'object'->>'id' = ?", [esim.id])
      .select('id');
    expect(events).toHaveLength(1);
    // The request retried late gets the top-up the worker recorded; nothing is bought again.
    const retried = await calls.topUp(caller, esim.id, bundle, idempotencyKey);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((retried.body as Topup).id).toBe(topupTransaction!.source);
    expect(purchases()).toBe(before + 1);
    expect(assignmentsAtVendor(esim.iccid)).toBe(2);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 8 * price, pending_cents: 0 });
  });

  it('the vendor down: 503 supplier_unavailable with Retry-After, nothing bought, nothing held', async () => {
    const caller = await calls.fund(10 * price);
    const esim = await liveEsim(caller);
    const before = purchases();
    await h.fake.control.fault({ kind: 'down' });
    try {
      const res = await calls.topUp(caller, esim.id, bundle);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'supplier_unavailable' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await h.fake.control.clearFaults();
    }
    expect(purchases()).toBe(before);
    expect(await balanceOf(caller)).toMatchObject({ available_cents: 9 * price, pending_cents: 0 });
  });
});
