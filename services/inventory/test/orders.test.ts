import type { Esim, Order } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  eventTypesOf,
  eventually,
  type Harness,
  headersFor,
  LIVE_BUNDLE,
  newCaller,
  operatorHeaders,
  resetSupplier,
  startInventory,
  supplierCalls,
} from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});
afterEach(async () => {
  await resetSupplier(h);
});

function luhnValid(iccid: string): boolean {
  let sum = 0;
  for (let i = 0; i < iccid.length; i += 1) {
    let d = Number(iccid[iccid.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

describe('POST /v1/esim with a test key', () => {
  const caller = newCaller('test');

  it('buys eSIMs: the order with its eSIMs, simulated and not rated', async () => {
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 3 });
    expect(res.status).toBe(201);
    const order = res.body as Order;
    expect(order).toMatchObject({
      object: 'order',
      bundle: 'esim_5GB_30D_EU',
      quantity: 3,
      price_cents: 1_599,
      total_cents: 4_797,
      currency: 'USD',
      rated: false,
      simulated: true,
    });
    expect(order.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(order.esims).toHaveLength(3);
    for (const esim of order.esims) {
      expect(esim).toMatchObject({
        object: 'esim',
        state: 'released',
        bundle: 'esim_5GB_30D_EU',
        data_used_bytes: 0,
        data_limit_bytes: 5_000_000_000,
        smdp_address: 'sandbox.smdp.invalid',
        simulated: true,
        created_at: order.created_at,
        updated_at: order.created_at,
        expires_at: order.created_at + 30 * 86_400,
      });
      expect(esim.id).toMatch(/^esim_[0-9a-z]{26}$/);
      expect(esim.iccid).toMatch(/^89882\d{14}$/);
      expect(luhnValid(esim.iccid)).toBe(true);
      expect(esim.matching_id).toMatch(/^TEST-[A-Z0-9]{20}$/);
      expect(esim.activation_code).toBe(`LPA:1$sandbox.smdp.invalid$${esim.matching_id}`);
    }
    expect(new Set(order.esims.map((e) => e.iccid)).size).toBe(3);
  });

  it('buys one by default, and up to ten', async () => {
    const one = await h.order(caller, { bundle: 'esim_1GB_7D_US' });
    expect(one.status).toBe(201);
    expect(one.body.quantity).toBe(1);
    expect(one.body.esims).toHaveLength(1);
    const ten = await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 10 });
    expect(ten.status).toBe(201);
    expect(ten.body.esims).toHaveLength(10);
  });

  it('gives unlimited bundles no data limit', async () => {
    const res = await h.order(caller, { bundle: 'esim_UL_7D_US' });
    expect(res.status).toBe(201);
    expect(res.body.esims[0].data_limit_bytes).toBeNull();
  });

  it('emits exactly one esim.released per eSIM, with the eSIM and no previous state', async () => {
    const res = await h.order(caller, { bundle: 'esim_3GB_30D_FR', quantity: 2 });
    for (const esim of res.body.esims as Esim[]) {
      expect(await eventTypesOf(h, esim.id, 1)).toEqual(['esim.released']);
      const [event] = h.eventsOf(esim.id);
      expect(event).toMatchObject({ object: 'event', environment: 'test', account_id: caller.accountId });
      expect(event?.data).toEqual({ object: esim, previous_state: null });
      expect(event?.id).toMatch(/^evt_/);
      expect(event?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('stores what it answered', async () => {
    const res = await h.order(caller, { bundle: 'esim_3GB_30D_FR' });
    const esim = res.body.esims[0] as Esim;
    const read = await h.get(caller, `/v1/esim/${esim.id}`);
    expect(read.body).toEqual(esim);
  });

  it.each([
    [{}, 'missing_parameter', 'bundle'],
    [{ quantity: 2 }, 'missing_parameter', 'bundle'],
    [{ bundle: 42 }, 'invalid_parameter', 'bundle'],
    [{ bundle: '' }, 'invalid_parameter', 'bundle'],
    [{ bundle: 'esim_5GB_30D_EU', quantity: 0 }, 'invalid_parameter', 'quantity'],
    [{ bundle: 'esim_5GB_30D_EU', quantity: 11 }, 'invalid_parameter', 'quantity'],
    [{ bundle: 'esim_5GB_30D_EU', quantity: '2' }, 'invalid_parameter', 'quantity'],
    [{ bundle: 'esim_5GB_30D_EU', quantity: 1.5 }, 'invalid_parameter', 'quantity'],
    [{ bundle: 'esim_5GB_30D_EU', colour: 'red' }, 'invalid_parameter', 'colour'],
    [{ bundle: 'esim_404GB_1D_XX' }, 'invalid_parameter', 'bundle'],
  ])('refuses %o with %s on %s', async (body, code, param) => {
    const res = await h.order(caller, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code, param });
  });

  it('refuses a retired bundle with capability_not_orderable', async () => {
    const res = await h.order(caller, { bundle: 'esim_2GB_14D_EU_LEGACY' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
  });

  it('needs an Idempotency-Key, as the gateway guarantees', async () => {
    const res = await request(h.app).post('/v1/esim').set(headersFor(caller)).send({ bundle: 'esim_5GB_30D_EU' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('idempotency_key_required');
  });

  it('takes sandbox profiles from a stock: a call to catalogue per many orders, never a profile twice', async () => {
    const calls = () => ({
      stock: h.catalogueCalls.get('/internal/supply/sandbox-profiles') ?? 0,
      orders: h.catalogueCalls.get('/internal/supply/orders') ?? 0,
    });
    const before = calls();
    // 120 profiles in 12 concurrent orders; the stock is topped up 50 at a time.
    const answers = await Promise.all(Array.from({ length: 12 }, () => h.order(caller, { bundle: 'esim_3GB_30D_FR', quantity: 10 })));
    for (const res of answers) expect(res.status).toBe(201);
    const iccids = answers.flatMap((res) => (res.body as Order).esims.map((esim) => esim.iccid));
    expect(iccids).toHaveLength(120);
    expect(new Set(iccids).size).toBe(120);
    const after = calls();
    expect(after.orders).toBe(before.orders);
    expect(after.stock - before.stock).toBeGreaterThanOrEqual(1);
    // At most one top-up per 50 profiles taken, one more left in flight: not one call per order.
    expect(after.stock - before.stock).toBeLessThanOrEqual(Math.ceil(120 / 50) + 1);
  });

  it('concurrent orders (written together, group-committed) are each whole: their eSIMs, events and answers, replayed as answered', async () => {
    const fresh = newCaller('test');
    const keys = Array.from({ length: 10 }, (_, i) => `idem-together-${i}-${Date.now()}`);
    const send = (key: string) =>
      request(h.app).post('/v1/esim').set(headersFor(fresh)).set('Idempotency-Key', key).send({ bundle: 'esim_5GB_30D_EU', quantity: 2 });
    const answers = await Promise.all(keys.map(send));
    for (const res of answers) expect(res.status).toBe(201);
    const orders = answers.map((res) => res.body as Order);
    expect(new Set(orders.map((order) => order.id)).size).toBe(10);
    const esimIds = orders.flatMap((order) => order.esims.map((esim) => esim.id));
    expect(await h.db.knex('inventory.esims').whereIn('id', esimIds).count<{ count: string }[]>({ count: '*' })).toEqual([{ count: '20' }]);
    for (const id of esimIds) expect(await eventTypesOf(h, id, 1)).toEqual(['esim.released']);
    // Orders sent at once were written by fewer transactions than orders.
    const transactions = await h.db
      .knex('inventory.orders')
      .whereIn(
        'id',
        orders.map((order) => order.id),
      )
      .select(h.db.knex.raw('count(distinct xmin::text) as count'));
    expect(Number(transactions[0]?.count)).toBeLessThan(10);
    const replays = await Promise.all(keys.map(send));
    replays.forEach((res, i) => {
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body).toEqual(answers[i]?.body);
    });
  });

  it('creates nothing when the order is refused', async () => {
    const fresh = newCaller('test');
    await h.order(fresh, { bundle: 'esim_404GB_1D_XX' });
    await h.order(fresh, { bundle: 'esim_2GB_14D_EU_LEGACY' });
    const list = await h.get(fresh, '/v1/esim');
    expect(list.body.data).toEqual([]);
  });
});

describe('POST /v1/esim with a live key', () => {
  const balanceOf = async (accountId: string) =>
    (await request(h.app).get(`/internal/accounts/${accountId}`).set(operatorHeaders())).body.live_balance_cents as number;

  it('needs a verified account', async () => {
    const caller = newCaller('live');
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_US_V2' });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission', code: 'verification_required' });
    await h.fund(caller.accountId, { live_balance_cents: 100_000 });
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_US_V2' })).status).toBe(403);
  });

  it('needs the balance for the whole order', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 2_000 });
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_US_V2', quantity: 2 });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'permission', code: 'balance_insufficient' });
    expect(await balanceOf(caller.accountId)).toBe(2_000);
    expect(supplierCalls(h, 'POST', '/orders')).toBe(0);
  });

  it('buys live profiles from the supplier and debits the balance', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_US_V2', quantity: 2 });
    expect(res.status).toBe(201);
    const order = res.body as Order;
    expect(order).toMatchObject({ rated: true, simulated: false, quantity: 2 });
    expect(order.price_cents % 100).toBe(99);
    expect(order.total_cents).toBe(order.price_cents * 2);
    for (const esim of order.esims) {
      expect(esim.simulated).toBe(false);
      expect(luhnValid(esim.iccid)).toBe(true);
      expect(h.supplier.control.esim(esim.iccid)).toBeDefined();
      expect(esim.activation_code).toBe(`LPA:1$${esim.smdp_address}$${esim.matching_id}`);
      expect(esim.matching_id?.startsWith('TEST-')).toBe(false);
    }
    expect(await balanceOf(caller.accountId)).toBe(100_000 - order.total_cents);
    const events = await eventually(() => {
      const found = order.esims.flatMap((e) => h.eventsOf(e.id));
      expect(found).toHaveLength(2);
      return found;
    });
    for (const event of events) expect(event).toMatchObject({ type: 'esim.released', environment: 'live' });
  });

  it('refuses a bundle that exists only in the sandbox', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    const res = await h.order(caller, { bundle: 'esim_1GB_3D_US_DEMO' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'capability_not_live' });
  });

  it('refuses a retired bundle and an unknown one', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    expect((await h.order(caller, { bundle: 'esim_2GB_14D_EU_LEGACY' })).body.error.code).toBe('capability_not_orderable');
    const unknown = await h.order(caller, { bundle: 'esim_404GB_1D_XX' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
  });

  it('answers 503 supplier_unavailable with Retry-After and charges nothing when the supplier is down', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    // The vendor answering its own 503 before anything is bought, then not answering at all.
    for (const fault of [{ kind: 'status', status: 503 }, { kind: 'down' }] as const) {
      await h.supplier.control.fault(fault);
      const res = await h.order(caller, { bundle: LIVE_BUNDLE });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await h.supplier.control.clearFaults();
    }
    expect(await balanceOf(caller.accountId)).toBe(100_000);
    expect((await h.get(caller, '/v1/esim')).body.data).toEqual([]);
  });

  it('answers 503 supplier_refused until a supplier is configured', async () => {
    const app = await h.withoutSupplier();
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    const res = await request(app).post('/v1/esim').set(headersFor(caller)).set('Idempotency-Key', 'idem-no-supplier-1').send({ bundle: LIVE_BUNDLE });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('supplier_refused');
    // The sandbox needs no supplier.
    const sandbox = await request(app)
      .post('/v1/esim')
      .set(headersFor(newCaller('test')))
      .set('Idempotency-Key', 'idem-no-supplier-2')
      .send({ bundle: 'esim_5GB_30D_EU' });
    expect(sandbox.status).toBe(201);
  });

  it('never overdraws under concurrent orders', async () => {
    const caller = newCaller('live');
    const unit = (await h.order(newCaller('test'), { bundle: 'esim_1GB_7D_GB' })).body.price_cents as number;
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    const livePrice = await (async () => {
      const res = await h.order(caller, { bundle: LIVE_BUNDLE });
      expect(res.status).toBe(201);
      return res.body.price_cents as number;
    })();
    expect(unit).toBeGreaterThan(0);
    // Room for exactly three more.
    await h.fund(caller.accountId, { live_balance_cents: livePrice * 3 });
    const results = await Promise.all(Array.from({ length: 6 }, () => h.order(caller, { bundle: LIVE_BUNDLE })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(3);
    expect(await balanceOf(caller.accountId)).toBe(0);
    // The refused orders rolled back whole: no eSIM and no event of theirs exists.
    const listed = (await h.get(caller, '/v1/esim?limit=100')).body.data as Esim[];
    expect(listed).toHaveLength(4);
    const marker = (await h.order(newCaller('test'), { bundle: 'esim_1GB_7D_GB' })).body.esims[0] as Esim;
    await eventTypesOf(h, marker.id, 1);
    const released = h.events.filter((e) => e.type === 'esim.released' && e.account_id === caller.accountId);
    expect(released.map((e) => (e.data as { object: Esim }).object.id).sort()).toEqual(listed.map((e) => e.id).sort());
  });
});
