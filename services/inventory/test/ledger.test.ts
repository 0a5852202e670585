import type { Balance, BalanceTransaction, List, Order } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, headersFor, LIVE_BUNDLE, newCaller, operatorHeaders, startInventory, type Caller, type Harness } from './support.ts';

/**
 * The ledger through the app (records 0156 and 0157): the balance of each environment, every movement
 * of it, the operator's settings and credits, the sandbox's simulated balance, and balance.low.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});

const balanceOf = async (caller: Caller) => {
  const res = await h.get(caller, '/v1/balance');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Balance;
};
const transactionsOf = async (caller: Caller, query = '') => {
  const res = await h.get(caller, `/v1/balance_transactions${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as List<BalanceTransaction>;
};
const setLive = (accountId: string, body: object) => request(h.app).put(`/internal/accounts/${accountId}`).set(operatorHeaders()).send(body);
const credit = (accountId: string, body: object) => request(h.app).post(`/internal/accounts/${accountId}/credits`).set(operatorHeaders()).send(body);
const setSimulated = (caller: Caller, body: object) =>
  request(h.app)
    .post('/v1/test/balance')
    .set(headersFor(caller))
    .set('Idempotency-Key', `idem-${newId('request')}`)
    .send(body);
const lowEvents = (accountId: string) => h.events.filter((e) => e.type === 'balance.low' && e.account_id === accountId);

/** The transactions add up to the balance, each one's balance after is the running sum, and none is negative. */
function expectConsistent(balance: Balance, newestFirst: BalanceTransaction[]): void {
  let running = 0;
  for (const transaction of [...newestFirst].reverse()) {
    running += transaction.amount_cents;
    expect(transaction.balance_after_cents).toBe(running);
    expect(running).toBeGreaterThanOrEqual(0);
  }
  expect(running).toBe(balance.available_cents);
}

describe('the live balance', () => {
  it('is empty for an account never funded, and names its environment', async () => {
    expect(await balanceOf(newCaller('live'))).toEqual({
      object: 'balance',
      environment: 'live',
      available_cents: 0,
      pending_cents: 0,
      currency: 'USD',
      low_balance_threshold_cents: null,
      simulated: false,
    });
  });

  it('records the operator’s settings as adjustments and credits as credits, newest first, adding up to the balance', async () => {
    const caller = newCaller('live');
    expect((await setLive(caller.accountId, { verified: true, live_balance_cents: 10_000 })).body).toMatchObject({ live_balance_cents: 10_000 });
    // The same balance again moves nothing.
    expect((await setLive(caller.accountId, { live_balance_cents: 10_000 })).status).toBe(200);
    expect((await setLive(caller.accountId, { live_balance_cents: 4_000 })).body).toMatchObject({ live_balance_cents: 4_000, live_pending_cents: 0 });
    const credited = await credit(caller.accountId, { amount_cents: 500, description: 'Top-up by bank transfer' });
    expect(credited.status).toBe(200);
    expect(credited.body).toMatchObject({ object: 'balance_transaction', type: 'credit', amount_cents: 500, balance_after_cents: 4_500 });

    const balance = await balanceOf(caller);
    expect(balance.available_cents).toBe(4_500);
    const list = await transactionsOf(caller);
    expect(list.data.map((t) => [t.type, t.amount_cents])).toEqual([
      ['credit', 500],
      ['adjustment', -6_000],
      ['adjustment', 10_000],
    ]);
    expect(list.data[0]).toMatchObject({ currency: 'USD', source: null, description: 'Top-up by bank transfer' });
    expect(list.data[0]?.id).toMatch(/^btx_[0-9a-z]{26}$/);
    expectConsistent(balance, list.data);
    // Nothing of it in the other environment.
    expect((await transactionsOf({ ...caller, environment: 'test' })).data).toEqual([]);
  });

  it('takes an order’s price as an `order` transaction whose source is the order, and pages and filters them', async () => {
    const caller = newCaller('live');
    await setLive(caller.accountId, { verified: true, live_balance_cents: 100_000 });
    const orders: Order[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await h.order(caller, { bundle: LIVE_BUNDLE });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      orders.push(res.body as Order);
    }
    const balance = await balanceOf(caller);
    expect(balance).toMatchObject({ available_cents: 100_000 - orders.reduce((sum, o) => sum + o.total_cents, 0), pending_cents: 0 });
    const ofOrder = await transactionsOf(caller, `?source=${orders[1]?.id}`);
    expect(ofOrder.data).toMatchObject([{ type: 'order', amount_cents: -(orders[1]?.total_cents ?? 0), source: orders[1]?.id }]);
    expect((await transactionsOf(caller, '?type=order')).data.map((t) => t.source)).toEqual(orders.map((o) => o.id).reverse());

    // Page by page, nothing missed or repeated; the cursor is bound to the filters of the first page.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: List<BalanceTransaction> = await transactionsOf(caller, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.data.map((t) => t.id));
      cursor = page.next_cursor;
    } while (cursor);
    const all = await transactionsOf(caller);
    expect(paged).toEqual(all.data.map((t) => t.id));
    expectConsistent(balance, all.data);
    const first = await transactionsOf(caller, '?limit=1');
    const crossed = await h.get(caller, `/v1/balance_transactions?type=order&cursor=${first.next_cursor}`);
    expect(crossed.status).toBe(400);
    expect(crossed.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
  });

  it('refuses bad filters with the error object', async () => {
    const caller = newCaller('live');
    for (const [query, param] of [
      ['?type=charge', 'type'],
      ['?source=esim_01m7q5cqg0m9s346q3d25vt4f5', 'source'],
      ['?limit=0', 'limit'],
    ] as const) {
      const res = await h.get(caller, `/v1/balance_transactions${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    }
  });

  it('sends balance.low once per crossing of the operator’s threshold', async () => {
    const caller = newCaller('live');
    await setLive(caller.accountId, { verified: true, live_balance_cents: 100_000, low_balance_threshold_cents: 99_900 });
    const price = ((await h.order(caller, { bundle: LIVE_BUNDLE })).body as Order).total_cents;
    await eventually(() => expect(lowEvents(caller.accountId)).toHaveLength(1));
    const [first] = lowEvents(caller.accountId);
    expect(first).toMatchObject({ environment: 'live', data: { threshold_cents: 99_900, object: { available_cents: 100_000 - price } } });
    // Still below: no second notice.
    expect((await h.order(caller, { bundle: LIVE_BUNDLE })).status).toBe(201);
    // Back to the threshold, then below again: a second one.
    await credit(caller.accountId, { amount_cents: 2 * price - 100 });
    expect((await balanceOf(caller)).available_cents).toBe(99_900);
    expect((await h.order(caller, { bundle: LIVE_BUNDLE })).status).toBe(201);
    await eventually(() => expect(lowEvents(caller.accountId)).toHaveLength(2));
    expect((await balanceOf(caller)).low_balance_threshold_cents).toBe(99_900);
  });
});

describe('the simulated balance (test keys)', () => {
  it('is off until set: sandbox orders are free and move nothing', async () => {
    const caller = newCaller('test');
    expect(await balanceOf(caller)).toMatchObject({ environment: 'test', available_cents: null, simulated: true });
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_EU' })).status).toBe(201);
    expect((await transactionsOf(caller)).data).toEqual([]);
  });

  it('once set, pays sandbox orders (402 past it) and sends balance.low; null switches it off again', async () => {
    const caller = newCaller('test');
    const price = ((await h.order(newCaller('test'), { bundle: 'esim_5GB_30D_EU' })).body as Order).price_cents;
    const set = await setSimulated(caller, { available_cents: price + 10, low_balance_threshold_cents: 100 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ environment: 'test', available_cents: price + 10, low_balance_threshold_cents: 100, simulated: true });

    const paid = await h.order(caller, { bundle: 'esim_5GB_30D_EU' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect((paid.body as Order).rated).toBe(false);
    expect((await balanceOf(caller)).available_cents).toBe(10);
    const refused = await h.order(caller, { bundle: 'esim_5GB_30D_EU' });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({ type: 'permission', code: 'balance_insufficient' });
    expect(refused.body.error.message).toContain('simulated balance');
    await eventually(() => expect(lowEvents(caller.accountId)).toMatchObject([{ environment: 'test', data: { threshold_cents: 100 } }]));

    const transactions = await transactionsOf(caller);
    expect(transactions.data.map((t) => t.type)).toEqual(['order', 'adjustment']);
    expectConsistent(await balanceOf(caller), transactions.data);

    expect((await setSimulated(caller, { available_cents: null })).body).toMatchObject({ available_cents: null });
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_EU' })).status).toBe(201);
    expect((await transactionsOf(caller)).data).toHaveLength(2);
  });

  it('pays an order on a test clock too', async () => {
    const caller = newCaller('test');
    await setSimulated(caller, { available_cents: 0 });
    const clock = await request(h.app)
      .post('/v1/test/clocks')
      .set(headersFor(caller))
      .set('Idempotency-Key', `idem-${newId('request')}`)
      .send({ frozen_time: 1_798_761_600 });
    expect(clock.status).toBe(201);
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', test_clock: clock.body.id });
    expect(res.status).toBe(402);
  });

  it('is refused to a live key and validated', async () => {
    const live = await setSimulated(newCaller('live'), { available_cents: 10 });
    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('live_key_test_resource');
    for (const [body, param] of [
      [{}, 'available_cents'],
      [{ available_cents: -1 }, 'available_cents'],
      [{ available_cents: 1.5 }, 'available_cents'],
      [{ available_cents: 10, low_balance_threshold_cents: 'x' }, 'low_balance_threshold_cents'],
      [{ available_cents: 10, overdraft: true }, 'overdraft'],
    ] as const) {
      const res = await setSimulated(newCaller('test'), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
  });
});
