import type { Esim, Order, TestClock } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../src/db/schema.ts';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { buyEsim, eventTypesOf, eventually, headersFor, newCaller, otherEnvironment, startInventory, type Caller, type Harness } from './support.ts';

/**
 * Test clocks inside inventory, on PostgreSQL + NATS when configured, else PGlite + the
 * in-process bus: eSIMs on a clock live in its time, an advance expires them in its own
 * transaction (one `esim.expired` each), the sweeper leaves them alone, and a deleted clock's
 * eSIMs stay frozen. The public API through the gateway is covered in the launcher's tests.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400;
const logger = createLogger({ name: 'test-clocks-test', level: 'silent' });
const key = () => `idem-${newId('request')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const createClock = (caller: Caller, body: object = {}) =>
  request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send(body);
const advance = (caller: Caller, id: string, frozenTime: number, idempotencyKey = key()) =>
  request(h.app).post(`/v1/test/clocks/${id}/advance`).set(headersFor(caller)).set('Idempotency-Key', idempotencyKey).send({ frozen_time: frozenTime });
const remove = (caller: Caller, id: string) => request(h.app).delete(`/v1/test/clocks/${id}`).set(headersFor(caller)).set('Idempotency-Key', key());

async function newClock(caller: Caller, frozenTime: number): Promise<TestClock> {
  const res = await createClock(caller, { frozen_time: frozenTime });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as TestClock;
}

async function orderOnClock(caller: Caller, clock: string, bundle = 'esim_1GB_7D_US', quantity = 1): Promise<Order> {
  const res = await h.order(caller, { bundle, quantity, test_clock: clock });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Order;
}

const stateOf = async (caller: Caller, esim: Esim) => ((await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim).state;

/** Rows of the outbox for one eSIM and type: what was committed, whatever the bus did since. */
async function outboxCount(esimId: string, type: string): Promise<number> {
  const rows = await h.db.knex
    .withSchema(SCHEMA)
    .from('outbox')
    .count<{ n: string | number }[]>({ n: '*' })
    .whereRaw("payload->>'type' = ? and payload->'data'->'object'->>'id' = ?", [type, esimId]);
  return Number(rows[0]?.n ?? 0);
}

/** The outbox publishes in commit order: once a later event is on the bus, every earlier one is too. */
async function drained(caller: Caller): Promise<void> {
  await eventTypesOf(h, (await buyEsim(h, caller)).id, 1);
}

describe('eSIMs on a test clock', () => {
  it('are created at the clock’s time, with expires_at from it, and their events are dated then', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds() + 100 * DAY;
    const clock = await newClock(caller, frozen);
    const order = await orderOnClock(caller, clock.id, 'esim_1GB_7D_US', 2);
    expect(order).toMatchObject({ test_clock: clock.id, created_at: frozen });
    for (const esim of order.esims) {
      expect(esim).toMatchObject({ test_clock: clock.id, created_at: frozen, updated_at: frozen, expires_at: frozen + 7 * DAY, state: 'released' });
      const [released] = await eventually(() => {
        const events = h.eventsOf(esim.id);
        expect(events).toHaveLength(1);
        return events;
      });
      expect(released).toMatchObject({ type: 'esim.released', created_at: frozen, time: new Date(frozen * 1000).toISOString() });
      // The id says when the event was recorded (real time, not the clock's future), so ids keep sorting by creation.
      expect((released?.id ?? '') < newId('event')).toBe(true);
    }
    const plain = await buyEsim(h, caller);
    expect(plain.test_clock).toBeNull();
    expect(Math.abs(plain.created_at - nowSeconds())).toBeLessThan(60);
  });

  it('change state and take usage at the clock’s time', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds() - 40 * DAY;
    const clock = await newClock(caller, frozen);
    const [esim] = (await orderOnClock(caller, clock.id, 'esim_5GB_30D_EU')).esims;
    if (!esim) throw new Error('no eSIM');
    const installed = await h.patch(caller, esim.id, 'installed');
    expect(installed.status).toBe(200);
    expect(installed.body).toMatchObject({ state: 'installed', updated_at: frozen });

    expect((await advance(caller, clock.id, frozen + 3600)).status).toBe(200);
    const used = await h.usage(caller, esim.id, 1_000_000);
    expect(used.status).toBe(200);
    expect(used.body).toMatchObject({ state: 'active', updated_at: frozen + 3600, data_used_bytes: 1_000_000 });
    const events = await eventually(() => {
      const found = h.eventsOf(esim.id);
      expect(found.map((e) => e.type)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);
      return found;
    });
    expect(events.map((e) => e.created_at)).toEqual([frozen, frozen, frozen + 3600]);
  });

  it('expire when an advance passes their expires_at: before the answer, once each, dated at expires_at', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds() + 10 * DAY;
    const clock = await newClock(caller, frozen);
    const week = (await orderOnClock(caller, clock.id, 'esim_1GB_7D_US', 2)).esims;
    const [month] = (await orderOnClock(caller, clock.id, 'esim_5GB_30D_EU')).esims;
    if (!month) throw new Error('no eSIM');
    const [suspendedOne] = week;
    if (!suspendedOne) throw new Error('no eSIM');
    for (const step of ['installed', 'active', 'suspended']) expect((await h.patch(caller, suspendedOne.id, step)).status).toBe(200);

    const advanced = await advance(caller, clock.id, frozen + 8 * DAY);
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    expect(advanced.body).toEqual({ ...clock, frozen_time: frozen + 8 * DAY, status: 'ready' });
    // Committed with the advance: read straight after its answer.
    for (const esim of week) {
      const read = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
      expect(read).toMatchObject({ state: 'expired', updated_at: frozen + 7 * DAY });
      expect(await outboxCount(esim.id, 'esim.expired')).toBe(1);
    }
    expect(await stateOf(caller, month)).toBe('released');

    // Further advances expire nothing twice; the month bundle goes when the clock passes it.
    expect((await advance(caller, clock.id, frozen + 9 * DAY)).status).toBe(200);
    expect((await advance(caller, clock.id, frozen + 31 * DAY)).status).toBe(200);
    expect(await stateOf(caller, month)).toBe('expired');
    await drained(caller);
    for (const esim of [...week, month]) {
      const expired = h.eventsOf(esim.id).filter((e) => e.type === 'esim.expired');
      expect(expired).toHaveLength(1);
      expect(expired[0]?.created_at).toBe(esim.expires_at);
      expect(expired[0]?.time).toBe(new Date((esim.expires_at ?? 0) * 1000).toISOString());
      expect(await outboxCount(esim.id, 'esim.expired')).toBe(1);
    }
    expect(h.eventsOf(suspendedOne.id).at(-1)).toMatchObject({
      type: 'esim.expired',
      data: { previous_state: 'suspended', object: { state: 'expired', test_clock: clock.id } },
    });
  });

  it('are left alone by the real-time sweeper, however late it runs', async () => {
    const caller = newCaller('test');
    // A clock in the past: in real time its eSIMs' validity has long ended.
    const clock = await newClock(caller, nowSeconds() - 100 * DAY);
    const [onClock] = (await orderOnClock(caller, clock.id)).esims;
    const plain = await buyEsim(h, caller, 'esim_1GB_7D_US');
    if (!onClock) throw new Error('no eSIM');
    const sweeper = startExpirySweeper({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 50, now: () => new Date(Date.now() + 1000 * DAY * 1000) });
    try {
      while ((await sweeper.sweep()) > 0);
    } finally {
      await sweeper.stop();
    }
    expect(await stateOf(caller, plain)).toBe('expired');
    expect(await stateOf(caller, onClock)).toBe('released');
    expect(await outboxCount(onClock.id, 'esim.expired')).toBe(0);
    // Its own clock still expires it.
    expect((await advance(caller, clock.id, (onClock.expires_at ?? 0) + 1)).status).toBe(200);
    expect(await stateOf(caller, onClock)).toBe('expired');
  });

  it('are never left behind by an advance that runs beside an order or another advance', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds();
    const clock = await newClock(caller, frozen);
    const [first] = (await orderOnClock(caller, clock.id)).esims;
    if (!first) throw new Error('no eSIM');
    const [ordered, ...advances] = await Promise.all([
      h.order(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id }),
      advance(caller, clock.id, frozen + 8 * DAY),
      advance(caller, clock.id, frozen + 9 * DAY),
      advance(caller, clock.id, frozen + 10 * DAY),
    ]);
    expect(ordered?.status).toBe(201);
    for (const res of advances) expect([200, 409, 400], JSON.stringify(res.body)).toContain(res.status);
    expect(advances.some((res) => res.status === 200)).toBe(true);
    for (const res of advances.filter((r) => r.status === 409)) {
      expect(res.body.error).toMatchObject({ code: 'invalid_state_transition', type: 'conflict' });
      expect(res.headers['retry-after']).toBe('1');
    }
    const now = (await h.get(caller, `/v1/test/clocks/${clock.id}`)).body as TestClock;
    expect(now.status).toBe('ready');
    for (const esim of [first, ...(ordered?.body as Order).esims]) {
      const read = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
      // Whatever the order of commits, an eSIM whose validity the clock passed is expired, once.
      expect(read.state).toBe((read.expires_at ?? Infinity) <= now.frozen_time ? 'expired' : 'released');
      expect(await outboxCount(esim.id, 'esim.expired')).toBe(read.state === 'expired' ? 1 : 0);
    }
  });
});

describe('advancing a test clock', () => {
  it('answers a retry with the same Idempotency-Key from its record, moving nothing again', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds();
    const clock = await newClock(caller, frozen);
    const [esim] = (await orderOnClock(caller, clock.id)).esims;
    if (!esim) throw new Error('no eSIM');
    const idempotencyKey = key();
    const first = await advance(caller, clock.id, frozen + 8 * DAY, idempotencyKey);
    expect(first.status).toBe(200);
    const again = await advance(caller, clock.id, frozen + 8 * DAY, idempotencyKey);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await outboxCount(esim.id, 'esim.expired')).toBe(1);
    // The same target with a new key is a new request: not later than the clock's time.
    const stale = await advance(caller, clock.id, frozen + 8 * DAY);
    expect(stale.status).toBe(400);
    expect(stale.body.error).toMatchObject({ code: 'invalid_parameter', param: 'frozen_time' });
  });

  it('shows advancing while an advance holds the clock, refuses a second one, and takes over a lapsed one', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds();
    const clock = await newClock(caller, frozen);
    const [esim] = (await orderOnClock(caller, clock.id)).esims;
    if (!esim) throw new Error('no eSIM');
    // An advance under way in another instance: marked, its effects not committed yet.
    const hold = (leaseUntil: number) =>
      h.db.knex
        .withSchema(SCHEMA)
        .table('test_clocks')
        .where({ id: clock.id })
        .update({
          status: 'advancing',
          advance_token: 'another-instance',
          advance_to: frozen + 60,
          advance_lease_until: leaseUntil,
        });
    await hold(Date.now() + 60_000);
    expect((await h.get(caller, `/v1/test/clocks/${clock.id}`)).body).toMatchObject({ status: 'advancing', frozen_time: frozen });
    const refused = await advance(caller, clock.id, frozen + 8 * DAY);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'invalid_state_transition' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(await stateOf(caller, esim)).toBe('released');

    // That instance died: once its lease lapses the clock is ready at its old time, and the next advance runs.
    await hold(Date.now() - 1);
    expect((await h.get(caller, `/v1/test/clocks/${clock.id}`)).body).toMatchObject({ status: 'ready', frozen_time: frozen });
    const taken = await advance(caller, clock.id, frozen + 8 * DAY);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body).toMatchObject({ status: 'ready', frozen_time: frozen + 8 * DAY });
    expect(await stateOf(caller, esim)).toBe('expired');
    const row = (await h.db.knex.withSchema(SCHEMA).from('test_clocks').where({ id: clock.id }).first()) as Record<string, unknown>;
    expect(row).toMatchObject({ status: 'ready', advance_token: null, advance_to: null, advance_lease_until: null });
  });
});

describe('a deleted test clock', () => {
  it('is gone from the API, while its eSIMs stay, frozen at its last time', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds() - 200 * DAY;
    const clock = await newClock(caller, frozen);
    const [esim] = (await orderOnClock(caller, clock.id)).esims;
    if (!esim) throw new Error('no eSIM');
    expect((await advance(caller, clock.id, frozen + DAY)).status).toBe(200);

    const deleted = await remove(caller, clock.id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'test_clock', id: clock.id, deleted: true });
    expect((await h.get(caller, `/v1/test/clocks/${clock.id}`)).body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    expect((await remove(caller, clock.id)).status).toBe(404);
    expect((await advance(caller, clock.id, frozen + 2 * DAY)).status).toBe(404);
    expect(((await h.get(caller, '/v1/test/clocks')).body as { data: TestClock[] }).data).toEqual([]);
    const order = await h.order(caller, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(order.status).toBe(404);
    expect(order.body.error).toMatchObject({ code: 'resource_not_found', param: 'test_clock' });

    // The eSIM keeps its clock and its time: the sweeper never expires it, its changes are dated at the clock's last time.
    const sweeper = startExpirySweeper({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 50 });
    try {
      while ((await sweeper.sweep()) > 0);
    } finally {
      await sweeper.stop();
    }
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body).toMatchObject({ state: 'released', test_clock: clock.id, updated_at: frozen });
    const installed = await h.patch(caller, esim.id, 'installed');
    expect(installed.body).toMatchObject({ state: 'installed', updated_at: frozen + DAY, test_clock: clock.id });
  });
});

describe('test clocks and their owner', () => {
  it('are not found for another account, and refused to a live key, in the order too', async () => {
    const caller = newCaller('test');
    const clock = await newClock(caller, nowSeconds());
    const stranger = newCaller('test');
    expect((await h.get(stranger, `/v1/test/clocks/${clock.id}`)).status).toBe(404);
    expect((await advance(stranger, clock.id, nowSeconds() + DAY)).status).toBe(404);
    expect((await remove(stranger, clock.id)).status).toBe(404);
    const foreign = await h.order(stranger, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_not_found', param: 'test_clock' });

    const live = otherEnvironment(caller);
    const liveRead = await h.get(live, `/v1/test/clocks/${clock.id}`);
    expect(liveRead.status).toBe(403);
    expect(liveRead.body.error).toMatchObject({ code: 'live_key_test_resource' });
    expect((await createClock(live)).status).toBe(403);
    const liveOrder = await h.order(live, { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(liveOrder.status).toBe(403);
    expect(liveOrder.body.error).toMatchObject({ code: 'live_key_test_resource', param: 'test_clock' });
    expect((await h.get(caller, `/v1/test/clocks/${clock.id}`)).body).toEqual(clock);
  });
});

describe('a sandbox first_use bundle (record 0230)', () => {
  it('has no expires_at until its simulated first use, which starts the clock; an advance expires it only after that', async () => {
    const caller = newCaller('test');
    const frozen = nowSeconds() + 10 * DAY;
    const clock = await newClock(caller, frozen);
    const [esim] = (await orderOnClock(caller, clock.id, 'esim_1GB_7D_US_FIRSTUSE')).esims;
    if (!esim) throw new Error('no eSIM');
    expect(esim).toMatchObject({ validity_start: 'first_use', expires_at: null, install_by: null, state: 'released' });
    // Eight days go by before the first use: nothing expires.
    expect((await advance(caller, clock.id, frozen + 8 * DAY)).status).toBe(200);
    expect(await stateOf(caller, esim)).toBe('released');
    const used = await request(h.app).post(`/internal/esims/${esim.id}/usage`).set(headersFor(caller)).send({ bytes: 1_000 });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    expect(used.body).toMatchObject({ state: 'active', expires_at: frozen + 15 * DAY });
    const activated = await eventually(() => {
      const found = h.eventsOf(esim.id).find((e) => e.type === 'esim.activated');
      expect(found).toBeDefined();
      return found!;
    });
    expect((activated.data as { object: Esim }).object.expires_at).toBe(frozen + 15 * DAY);
    expect((await advance(caller, clock.id, frozen + 15 * DAY - 60)).status).toBe(200);
    expect(await stateOf(caller, esim)).toBe('active');
    expect((await advance(caller, clock.id, frozen + 15 * DAY)).status).toBe(200);
    expect(await stateOf(caller, esim)).toBe('expired');
  });

  it('in real time, a PATCH to active starts it; a purchase bundle keeps its expires_at from purchase', async () => {
    const caller = newCaller('test');
    const first = await buyEsim(h, caller, 'esim_5GB_30D_EU_FIRSTUSE');
    expect(first.expires_at).toBeNull();
    for (const step of ['installed', 'active']) expect((await h.patch(caller, first.id, step)).status).toBe(200);
    const active = (await h.get(caller, `/v1/esim/${first.id}`)).body as Esim;
    expect(Math.abs(active.expires_at! - (nowSeconds() + 30 * DAY))).toBeLessThan(60);
    const plain = await buyEsim(h, caller, 'esim_5GB_30D_EU');
    expect(plain).toMatchObject({ validity_start: 'purchase', expires_at: plain.created_at + 30 * DAY });
  });
});
