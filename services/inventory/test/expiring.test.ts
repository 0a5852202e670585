import type { Esim, Order, TestClock } from '@connectivity/contracts';
import { createLogger, newId, type InternalEvent } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../src/db/schema.ts';
import { startExpiringNotifier } from '../src/workers/expiring-notifier.ts';
import { eventually, headersFor, newCaller, startInventory, type Caller, type Harness } from './support.ts';

/**
 * `esim.expiring` in the sandbox (record 0236), on PostgreSQL + NATS when configured, else PGlite + the
 * in-process bus: 3 days and 1 day before `expires_at`, once per mark, again after a top-up moves
 * `expires_at`; by a test clock's advance for eSIMs on a clock, by the notifier in real time otherwise;
 * never for an expired eSIM.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400;
const logger = createLogger({ name: 'expiring-test', level: 'silent' });
const key = () => `idem-${newId('request')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function newClock(caller: Caller, frozenTime: number): Promise<TestClock> {
  const res = await request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send({ frozen_time: frozenTime });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as TestClock;
}
async function advance(caller: Caller, clockId: string, frozenTime: number): Promise<void> {
  const res = await request(h.app)
    .post(`/v1/test/clocks/${clockId}/advance`)
    .set(headersFor(caller))
    .set('Idempotency-Key', key())
    .send({ frozen_time: frozenTime });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
async function buy(caller: Caller, body: object): Promise<Esim> {
  const res = await h.order(caller, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as Order).esims[0]!;
}

/** The `esim.expiring` rows committed to the outbox for one eSIM, in order: their mark and time. */
async function committed(esimId: string): Promise<{ days_left: number; created_at: number }[]> {
  const rows = (await h.db.knex
    .withSchema(SCHEMA)
    .from('outbox')
    .select('payload')
    .whereRaw("payload->>'type' = 'esim.expiring' and payload->'data'->'object'->>'id' = ?", [esimId])
    .orderBy('id')) as { payload: unknown }[];
  return rows
    .map((row) => (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as InternalEvent)
    .map((event) => ({ days_left: (event.data as { days_left: number }).days_left, created_at: event.created_at }));
}

const published = (esimId: string) => h.eventsOf(esimId).filter((e) => e.type === 'esim.expiring');

/** A notifier as an inventory instance runs it, its clock `seconds` ahead of ours. */
const notifierAhead = (seconds: number) =>
  startExpiringNotifier({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 5, now: () => new Date(Date.now() + seconds * 1000) });

describe('esim.expiring on a test clock', () => {
  it('an advance past the 3-day mark sends it once, past the 1-day mark once more, dated at each mark', async () => {
    const caller = newCaller('test');
    const start = nowSeconds() + 50 * DAY;
    const clock = await newClock(caller, start);
    const esim = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(esim.expires_at).toBe(start + 7 * DAY);

    await advance(caller, clock.id, start + 3 * DAY);
    expect(await committed(esim.id)).toEqual([]);
    await advance(caller, clock.id, start + 4 * DAY + 600);
    expect(await committed(esim.id)).toEqual([{ days_left: 3, created_at: start + 4 * DAY }]);
    await advance(caller, clock.id, start + 5 * DAY);
    expect(await committed(esim.id)).toHaveLength(1);
    await advance(caller, clock.id, start + 6 * DAY + 600);
    await advance(caller, clock.id, start + 6 * DAY + 1_200);
    expect(await committed(esim.id)).toEqual([
      { days_left: 3, created_at: start + 4 * DAY },
      { days_left: 1, created_at: start + 6 * DAY },
    ]);
    await eventually(() => expect(published(esim.id).map((e) => (e.data as { days_left: number }).days_left)).toEqual([3, 1]));
    const [first] = published(esim.id);
    expect(first).toMatchObject({
      environment: 'test',
      account_id: caller.accountId,
      data: { days_left: 3, object: { id: esim.id, state: 'released', expires_at: start + 7 * DAY } },
    });

    // The validity ends: esim.expired, and no notice after it.
    await advance(caller, clock.id, start + 8 * DAY);
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' });
    expect(await committed(esim.id)).toHaveLength(2);
  });

  it('gets both marks again after a top-up moves expires_at', async () => {
    const caller = newCaller('test');
    const start = nowSeconds() + 60 * DAY;
    const clock = await newClock(caller, start);
    const esim = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    await advance(caller, clock.id, start + 4 * DAY + 60);
    await advance(caller, clock.id, start + 6 * DAY + 60);
    expect((await committed(esim.id)).map((n) => n.days_left)).toEqual([3, 1]);

    const topup = await request(h.app)
      .post(`/v1/esim/${esim.id}/topups`)
      .set(headersFor(caller))
      .set('Idempotency-Key', key())
      .send({ bundle: 'esim_3GB_15D_US' });
    expect(topup.status, JSON.stringify(topup.body)).toBe(201);
    const after = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(after.expires_at).toBe(start + 22 * DAY);

    await advance(caller, clock.id, start + 10 * DAY);
    expect(await committed(esim.id)).toHaveLength(2);
    await advance(caller, clock.id, start + 19 * DAY + 60);
    await advance(caller, clock.id, start + 21 * DAY + 60);
    expect(await committed(esim.id)).toEqual([
      { days_left: 3, created_at: start + 4 * DAY },
      { days_left: 1, created_at: start + 6 * DAY },
      { days_left: 3, created_at: start + 19 * DAY },
      { days_left: 1, created_at: start + 21 * DAY },
    ]);
    const notices = await eventually(() => {
      const found = published(esim.id);
      expect(found).toHaveLength(4);
      return found;
    });
    expect((notices[2]?.data as { object: Esim }).object.expires_at).toBe(start + 22 * DAY);
  });

  it('an advance past both marks at once sends the nearer one only; one past the end sends none; a cancelled eSIM gets none', async () => {
    const caller = newCaller('test');
    const start = nowSeconds() + 70 * DAY;
    const clock = await newClock(caller, start);
    const jumped = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    const cancelled = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect((await h.patch(caller, cancelled.id, 'expired')).status).toBe(200);
    await advance(caller, clock.id, start + 6 * DAY + 60);
    expect(await committed(jumped.id)).toEqual([{ days_left: 1, created_at: start + 6 * DAY }]);
    expect(await committed(cancelled.id)).toEqual([]);

    const past = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    await advance(caller, clock.id, start + 20 * DAY);
    expect((await h.get(caller, `/v1/esim/${past.id}`)).body).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' });
    expect(await committed(past.id)).toEqual([]);
  });
});

describe('the expiring notifier (real time)', () => {
  it('sends each mark once, even with two instances at once, and leaves eSIMs on a clock and expired ones alone', async () => {
    const caller = newCaller('test');
    const esims = [
      await buy(caller, { bundle: 'esim_1GB_7D_US' }),
      await buy(caller, { bundle: 'esim_1GB_7D_US' }),
      await buy(caller, { bundle: 'esim_1GB_7D_US' }),
    ];
    const [inUse, cancelled] = esims as [Esim, Esim, Esim];
    expect((await h.usage(caller, inUse.id, 1_000)).status).toBe(200);
    expect((await h.patch(caller, cancelled.id, 'expired')).status).toBe(200);
    const clock = await newClock(caller, nowSeconds());
    const onClock = await buy(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });

    const early = notifierAhead(3 * DAY);
    const a = notifierAhead(4 * DAY + 120);
    const b = notifierAhead(4 * DAY + 120);
    try {
      await early.sweep();
      for (const esim of esims) expect(await committed(esim.id)).toEqual([]);
      await Promise.all([a.sweep(), b.sweep(), a.sweep(), b.sweep()]);
      await a.sweep();
    } finally {
      await Promise.all([early.stop(), a.stop(), b.stop()]);
    }
    for (const esim of esims) expect((await committed(esim.id)).map((n) => n.days_left)).toEqual(esim.id === cancelled.id ? [] : [3]);
    expect(await committed(onClock.id)).toEqual([]);

    const later = notifierAhead(6 * DAY + 120);
    try {
      await later.sweep();
      await later.sweep();
    } finally {
      await later.stop();
    }
    for (const esim of esims) expect((await committed(esim.id)).map((n) => n.days_left)).toEqual(esim.id === cancelled.id ? [] : [3, 1]);
    await eventually(() => expect(published(inUse.id).map((e) => (e.data as { object: Esim }).object.state)).toEqual(['active', 'active']));
  });
});
