import type { Order, TestClock } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../src/db/schema.ts';
import { startTestDataRetention } from '../src/workers/test-data-retention.ts';
import { buyEsim, eventually, headersFor, newCaller, startInventory, type Caller, type Harness } from './support.ts';

/**
 * The test data sweep (record 0213) on its real poller, with a batch of 2 so that it takes several
 * transactions: old test orders with their eSIMs go, orders on an old clock go with the clock, young
 * test data stays, and live data stays whatever its age.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400;
const KEEP_MS = 30 * DAY * 1000;
const logger = createLogger({ name: 'test-data-retention-test', level: 'silent' });
const key = () => `idem-${newId('request')}`;
const knex = () => h.db.knex.withSchema(SCHEMA);

async function order(caller: Caller, body: object = {}): Promise<Order> {
  const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 2, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Order;
}
async function clock(caller: Caller, frozenTime: number): Promise<TestClock> {
  const res = await request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send({ frozen_time: frozenTime });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as TestClock;
}
/** Makes an order (and its eSIMs) look created `days` ago. */
async function age(table: 'orders' | 'test_clocks', id: string, days: number): Promise<void> {
  const createdAt = Math.floor(Date.now() / 1000) - days * DAY;
  await knex().from(table).where({ id }).update({ created_at: createdAt });
  if (table === 'orders') await knex().from('esims').where({ order_id: id }).update({ created_at: createdAt });
}
const exists = async (table: string, id: string) => (await knex().from(table).where({ id }).first('id')) !== undefined;
const esimsOf = async (orderId: string) => Number((await knex().from('esims').where({ order_id: orderId }).count<{ n: string }[]>({ n: '*' }))[0]?.n ?? 0);

describe('the test data sweep', () => {
  it('deletes old test orders with their eSIMs and old clocks with their orders, in batches; young test data and all live data stay', async () => {
    const test = newCaller('test');
    const live = newCaller('live');
    await h.fund(live.accountId, { verified: true, live_balance_cents: 10_000_000 });

    const old = await Promise.all([order(test), order(test), order(test)]);
    for (const made of old) await age('orders', made.id, 31);
    const young = await order(test);
    await age('orders', young.id, 29);
    // A clock frozen years ago: its orders are dated then, yet the clock is young, so they stay.
    const youngClock = await clock(test, Math.floor(Date.now() / 1000) - 3_000 * DAY);
    const onYoungClock = await order(test, { test_clock: youngClock.id });
    // An old clock: its orders go with it, whatever date they carry.
    const oldClock = await clock(test, Math.floor(Date.now() / 1000) + 100 * DAY);
    const onOldClock = await order(test, { test_clock: oldClock.id });
    await age('test_clocks', oldClock.id, 31);
    // Live data, however old, is never the sweep's.
    const liveEsim = await buyEsim(h, live);
    const liveOrder = (await knex().from('esims').where({ id: liveEsim.id }).first<{ order_id: string }>('order_id'))?.order_id ?? '';
    await age('orders', liveOrder, 400);
    // Yesterday's and older counters of the test eSIMs quota go; today's stays.
    const today = Math.floor(Date.now() / 86_400_000);
    await knex()
      .into('test_esims_per_day')
      .insert({ account_id: test.accountId, day: today - 40, created: 5 })
      .onConflict(['account_id', 'day'])
      .ignore();

    const sweep = startTestDataRetention({ knex: h.db.knex, logger, keepMs: KEEP_MS, intervalMs: 50, batchSize: 2 });
    try {
      await eventually(async () => {
        for (const made of [...old, onOldClock]) expect(await exists('orders', made.id)).toBe(false);
        expect(await exists('test_clocks', oldClock.id)).toBe(false);
        // The counters go in the same passes; a pass another instance's sweep held up comes again.
        const counted = await knex().from('test_esims_per_day').where({ account_id: test.accountId }).select<{ day: number }[]>('day');
        expect(counted.map((row) => Number(row.day))).toEqual([today]);
      }, 20_000);
    } finally {
      await sweep.stop();
    }

    for (const made of [...old, onOldClock]) expect(await esimsOf(made.id)).toBe(0);
    for (const kept of [young, onYoungClock]) {
      expect(await exists('orders', kept.id)).toBe(true);
      expect(await esimsOf(kept.id)).toBe(2);
    }
    expect(await exists('test_clocks', youngClock.id)).toBe(true);
    expect(await exists('orders', liveOrder)).toBe(true);
    expect(await exists('esims', liveEsim.id)).toBe(true);
    const days = await knex().from('test_esims_per_day').where({ account_id: test.accountId }).select<{ day: number }[]>('day');
    expect(days.map((row) => Number(row.day))).toEqual([today]);
    // Through the API too: what is gone is not found, what stays reads as before.
    expect((await h.get(test, `/v1/esim/${old[0]?.esims[0]?.id ?? ''}`)).status).toBe(404);
    expect((await h.get(test, `/v1/esim/${young.esims[0]?.id ?? ''}`)).status).toBe(200);
    expect((await h.get(live, `/v1/esim/${liveEsim.id}`)).status).toBe(200);
  });
});
