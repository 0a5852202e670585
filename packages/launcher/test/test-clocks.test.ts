import { randomBytes } from 'node:crypto';
import type { ApiEvent, Esim, List, Order, TestClock } from '@connectivity/contracts';
import { createAccount, rotateKey } from '@connectivity/gateway';
import { eventually as eventuallyWithin } from '@connectivity/platform/testing';
import { Connectivity, NotFoundError } from '@connectivity/sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

// Events pass through the outbox and the bus before the events API lists them.
const eventually = <T>(check: () => Promise<T>) => eventuallyWithin(check, 15_000, 50);

const DAY = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * Test clocks (record 0257) through the public gateway, which routes
 * them by the contract alone, on PostgreSQL + NATS when configured, else PGlite + the in-process
 * bus: the clock routes with their errors, scope and test/live boundary, and eSIMs that live in a
 * clock's time, expired by its advance with one `esim.expired` each in the events API.
 */
describe('test clocks through the gateway', () => {
  let stack: LocalStack;
  let testKey = '';
  let liveKey = '';
  let strangerKey = '';

  const api = (method: string, path: string, body?: unknown) => stack.call(testKey, method, path, body);
  const asKey = (key: string, method: string, path: string, body?: unknown) => stack.call(key, method, path, body);

  /** A call with the caller's own Idempotency-Key (or none). */
  async function withKey(key: string, method: string, path: string, idempotencyKey: string | undefined, body?: unknown) {
    const response = await fetch(`${stack.composition.gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown> & { error?: Record<string, unknown> },
    };
  }

  async function newClock(body: object): Promise<TestClock> {
    const created = await api('POST', '/v1/test/clocks', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as unknown as TestClock;
  }

  /** The account's events about one eSIM, from the events API (oldest first). */
  async function eventsOf(esimId: string): Promise<ApiEvent[]> {
    const page = (await api('GET', '/v1/events?limit=100')).body as unknown as List<ApiEvent>;
    return page.data.filter((event) => (event.data as { object?: { id?: string } }).object?.id === esimId).reverse();
  }

  beforeAll(async () => {
    // The sweeper runs often here, so a test can see that it leaves clock eSIMs alone.
    stack = await startLocalStack({ SWEEPER_INTERVAL_MS: '100' });
    const account = await createAccount(stack.db.knex);
    testKey = account.test.secret;
    liveKey = account.live.secret;
    strangerKey = (await createAccount(stack.db.knex)).test.secret;
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  test('create, read, list page by page, delete', async () => {
    const frozen = nowSeconds() + 30 * DAY;
    const named = await newClock({ frozen_time: frozen, name: 'renewals' });
    expect(named).toEqual({ object: 'test_clock', id: named.id, name: 'renewals', frozen_time: frozen, status: 'ready', created_at: named.created_at });
    expect(named.id).toMatch(/^clock_[0-9a-z]{26}$/);
    expect(Math.abs(named.created_at - nowSeconds())).toBeLessThan(60);
    const plain = await newClock({});
    expect(plain.name).toBeNull();
    expect(Math.abs(plain.frozen_time - nowSeconds())).toBeLessThan(60);
    const bodiless = await api('POST', '/v1/test/clocks');
    expect(bodiless.status).toBe(201);

    expect((await api('GET', `/v1/test/clocks/${named.id}`)).body).toEqual(named);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await api('GET', `/v1/test/clocks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      const list = page.body as unknown as List<TestClock>;
      ids.push(...list.data.map((clock) => clock.id));
      cursor = list.next_cursor;
    } while (cursor !== null);
    expect(ids.slice(0, 3)).toEqual([bodiless.body.id, plain.id, named.id]);

    const deleted = await api('DELETE', `/v1/test/clocks/${plain.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'test_clock', id: plain.id, deleted: true });
    const gone = await api('GET', `/v1/test/clocks/${plain.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ type: 'not_found', code: 'resource_not_found', param: 'id' });
    expect((gone.body.error as { link?: string }).link).toMatch(/\/v1\/errors\/resource_not_found$/);
    const listed = (await api('GET', '/v1/test/clocks?limit=100')).body as unknown as List<TestClock>;
    expect(listed.data.map((clock) => clock.id)).not.toContain(plain.id);
    expect((await api('GET', '/v1/test/clocks/clock_00000000000000000000000000')).status).toBe(404);
  });

  test('bad input is the spec’s error object: times in milliseconds, empty names, unknown fields, backwards advances', async () => {
    const cases: [unknown, string, string][] = [
      [{ frozen_time: Date.now() }, 'invalid_parameter', 'frozen_time'],
      [{ frozen_time: '1798761600' }, 'invalid_parameter', 'frozen_time'],
      [{ name: '' }, 'invalid_parameter', 'name'],
      [{ colour: 'red' }, 'invalid_parameter', 'colour'],
    ];
    for (const [body, code, param] of cases) {
      const res = await api('POST', '/v1/test/clocks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code, param });
    }

    const clock = await newClock({ frozen_time: nowSeconds() });
    for (const frozen_time of [clock.frozen_time, clock.frozen_time - 1]) {
      const back = await api('POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time });
      expect(back.status).toBe(400);
      expect(back.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', param: 'frozen_time' });
    }
    const missing = await api('POST', `/v1/test/clocks/${clock.id}/advance`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_parameter', param: 'frozen_time' });
    const noKey = await withKey(testKey, 'POST', `/v1/test/clocks/${clock.id}/advance`, undefined, { frozen_time: clock.frozen_time + 1 });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error).toMatchObject({ code: 'idempotency_key_required' });
    const unknown = await api('POST', '/v1/test/clocks/clock_00000000000000000000000000/advance', { frozen_time: clock.frozen_time + 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    expect((await api('GET', `/v1/test/clocks/${clock.id}`)).body).toEqual(clock);
  });

  test('a live key gets 403 live_key_test_resource, a key without test_helpers 403 key_out_of_scope', async () => {
    const clock = await newClock({});
    const calls: [string, string, unknown?][] = [
      ['POST', '/v1/test/clocks', {}],
      ['GET', '/v1/test/clocks'],
      ['GET', `/v1/test/clocks/${clock.id}`],
      ['DELETE', `/v1/test/clocks/${clock.id}`],
      ['POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: clock.frozen_time + DAY }],
    ];
    for (const [method, path, body] of calls) {
      const res = await asKey(liveKey, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ type: 'permission', code: 'live_key_test_resource' });
    }

    const narrow = await createAccount(stack.db.knex);
    const esimOnly = (await rotateKey(stack.db.knex, narrow.account.id, 'test', { scopes: ['esim:read', 'esim:write'] })).secret;
    for (const [method, path, body] of calls) {
      const res = await asKey(esimOnly, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'key_out_of_scope' });
    }
    expect((await api('GET', `/v1/test/clocks/${clock.id}`)).body).toEqual(clock);
  });

  test('another account’s clock does not exist for the caller, in the clock routes and in an order', async () => {
    const clock = await newClock({});
    for (const [method, path, body] of [
      ['GET', `/v1/test/clocks/${clock.id}`],
      ['DELETE', `/v1/test/clocks/${clock.id}`],
      ['POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: clock.frozen_time + DAY }],
    ] as [string, string, unknown?][]) {
      const res = await asKey(strangerKey, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'resource_not_found' });
    }
    const order = await asKey(strangerKey, 'POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(order.status).toBe(404);
    expect(order.body.error).toMatchObject({ code: 'resource_not_found', param: 'test_clock' });
    const strangers = (await asKey(strangerKey, 'GET', '/v1/test/clocks')).body as unknown as List<TestClock>;
    expect(strangers.data.map((c) => c.id)).not.toContain(clock.id);
    expect((await api('GET', `/v1/test/clocks/${clock.id}`)).body).toEqual(clock);
  });

  test('an order on a clock lives in its time; an advance expires it before answering, with one esim.expired, never two', async () => {
    const frozen = nowSeconds() + 50 * DAY;
    const clock = await newClock({ frozen_time: frozen });
    const live = await asKey(liveKey, 'POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(live.status).toBe(403);
    expect(live.body.error).toMatchObject({ code: 'live_key_test_resource', param: 'test_clock' });
    const unknown = await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', test_clock: 'clock_00000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_not_found', param: 'test_clock' });

    const ordered = await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(201);
    const order = ordered.body as unknown as Order;
    const [esim] = order.esims;
    if (!esim) throw new Error('no eSIM');
    expect(order).toMatchObject({ created_at: frozen, test_clock: clock.id });
    expect(esim).toMatchObject({ created_at: frozen, updated_at: frozen, expires_at: frozen + 7 * DAY, test_clock: clock.id, state: 'released' });
    expect((await api('GET', `/v1/esim/${esim.id}`)).body).toEqual(esim);

    const advanced = await api('POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: frozen + 8 * DAY });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    expect(advanced.body).toEqual({ ...clock, frozen_time: frozen + 8 * DAY, status: 'ready' });
    expect((await api('GET', `/v1/esim/${esim.id}`)).body).toMatchObject({ state: 'expired', updated_at: frozen + 7 * DAY });
    expect((await api('POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: frozen + 9 * DAY })).status).toBe(200);

    const events = await eventually(async () => {
      const found = await eventsOf(esim.id);
      expect(found.map((event) => event.type)).toEqual(['esim.released', 'esim.expired']);
      return found;
    });
    expect(events.map((event) => event.created_at)).toEqual([frozen, frozen + 7 * DAY]);
    expect(events[1]?.time).toBe(new Date((frozen + 7 * DAY) * 1000).toISOString());
    expect(events[1]?.data).toMatchObject({ previous_state: 'released', object: { id: esim.id, state: 'expired', test_clock: clock.id } });
    // Events reach the log in the order they were committed: once a later one is there, a second expiry would be too.
    const sentinel = (await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US' })).body as unknown as Order;
    await eventually(async () => expect(await eventsOf(sentinel.esims[0]?.id ?? '')).toHaveLength(1));
    expect((await eventsOf(esim.id)).map((event) => event.type)).toEqual(['esim.released', 'esim.expired']);
  });

  test('the real-time sweeper runs but never expires an eSIM on a clock', async () => {
    // A clock in the past: in real time the eSIM's validity ended long ago.
    const clock = await newClock({ frozen_time: nowSeconds() - 100 * DAY });
    const onClock = ((await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', test_clock: clock.id })).body as unknown as Order).esims[0];
    const plain = ((await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US' })).body as unknown as Order).esims[0];
    if (!onClock || !plain) throw new Error('no eSIM');
    // The plain eSIM's validity is ended by hand, so the sweeper has one to find.
    await stack.db.knex
      .withSchema('inventory')
      .table('esims')
      .where({ id: plain.id })
      .update({ expires_at: nowSeconds() - 1 });
    await eventually(async () => expect(((await api('GET', `/v1/esim/${plain.id}`)).body as unknown as Esim).state).toBe('expired'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await api('GET', `/v1/esim/${onClock.id}`)).body).toMatchObject({ state: 'released', expires_at: clock.frozen_time + 7 * DAY });
  });

  test('a create repeated with its Idempotency-Key gives the same clock; another body with it is refused', async () => {
    const key = randomBytes(12).toString('hex');
    const body = { name: 'retried', frozen_time: nowSeconds() };
    const first = await withKey(testKey, 'POST', '/v1/test/clocks', key, body);
    expect(first.status).toBe(201);
    const again = await withKey(testKey, 'POST', '/v1/test/clocks', key, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await withKey(testKey, 'POST', '/v1/test/clocks', key, { ...body, name: 'other' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused' });
    const named = ((await api('GET', '/v1/test/clocks?limit=100')).body as unknown as List<TestClock>).data.filter((clock) => clock.name === 'retried');
    expect(named).toHaveLength(1);

    // An advance retried with its key is answered from the record, not advanced again.
    const clock = first.body as unknown as TestClock;
    const advanceKey = randomBytes(12).toString('hex');
    const advanced = await withKey(testKey, 'POST', `/v1/test/clocks/${clock.id}/advance`, advanceKey, { frozen_time: clock.frozen_time + DAY });
    const repeated = await withKey(testKey, 'POST', `/v1/test/clocks/${clock.id}/advance`, advanceKey, { frozen_time: clock.frozen_time + DAY });
    expect(advanced.status).toBe(200);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(advanced.body);
  });

  test('the SDK drives clocks and orders on them', async () => {
    const sdk = new Connectivity({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl });
    const frozen = nowSeconds() + 5 * DAY;
    const clock = await sdk.testClocks.create({ name: 'sdk', frozen_time: frozen });
    const order = await sdk.esims.create({ bundle: 'esim_1GB_7D_US', test_clock: clock.id });
    expect(order.esims[0]?.created_at).toBe(frozen);
    const advanced = await sdk.testClocks.advance(clock.id, { frozen_time: frozen + 8 * DAY });
    expect(advanced.frozen_time).toBe(frozen + 8 * DAY);
    expect((await sdk.esims.retrieve(order.esims[0]?.id ?? '')).state).toBe('expired');
    expect(await sdk.testClocks.retrieve(clock.id)).toEqual(advanced);
    const ids: string[] = [];
    for await (const listed of sdk.testClocks.list({ limit: 3 })) ids.push(listed.id);
    expect(ids).toContain(clock.id);
    expect(await sdk.testClocks.delete(clock.id)).toEqual({ object: 'test_clock', id: clock.id, deleted: true });
    await expect(sdk.testClocks.retrieve(clock.id)).rejects.toBeInstanceOf(NotFoundError);
    // Its eSIM stays, on the deleted clock.
    expect((await sdk.esims.retrieve(order.esims[0]?.id ?? '')).test_clock).toBe(clock.id);
  });
});
