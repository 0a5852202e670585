import type { ApiEvent, Order } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { openStream, type SseConnection } from './support/sse.ts';

/**
 * GET /v1/events/stream end to end through the gateway, on PostgreSQL + NATS when configured,
 * else PGlite + the in-process bus: SSE framing and order, the test/live and scope checks, a
 * resume after a disconnect that loses nothing, replays reaching an open stream, no other
 * account's events, the types filter, keepalives, and a drain that ends open streams.
 */
describe('the event stream through the gateway', () => {
  let stack: LocalStack;
  let testKey = '';
  let liveKey = '';
  const open: SseConnection[] = [];

  const stream = async (key: string, query = '', headers: Record<string, string> = {}) => {
    const connection = await openStream(`${stack.composition.gatewayUrl}/v1/events/stream${query}`, { authorization: `Bearer ${key}`, ...headers });
    open.push(connection);
    return connection;
  };
  const buy = async (key: string, quantity = 1) => {
    const created = await stack.call(key, 'POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as unknown as Order;
  };
  const move = async (key: string, id: string, state: string) => {
    const moved = await stack.call(key, 'PATCH', `/v1/esim/${id}`, { state });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  };
  /** The account's stored events (newest first), once `predicate` holds for them. */
  const storedEvents = async (key: string, predicate: (events: ApiEvent[]) => boolean) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const listed = await stack.call(key, 'GET', '/v1/events?limit=100');
      const events = listed.body.data as ApiEvent[];
      if (predicate(events)) return events;
      if (Date.now() > deadline) throw new Error(`events never matched: ${events.map((e) => e.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const eventsOf = (order: Order) => (events: ApiEvent[]) =>
    events.filter((event) => order.esims.some((esim) => (event.data as { object?: { id?: string } }).object?.id === esim.id));

  beforeAll(async () => {
    stack = await startLocalStack({ STREAM_KEEPALIVE_MS: '300', STREAM_POLL_INTERVAL_MS: '1000', RATE_LIMIT_PER_MINUTE: '100000' });
  }, 180_000);

  /** Open streams, whose leases the key's cap counts. */
  const leases = async () => Number((await stack.db.knex('notifications.stream_leases').count({ n: '*' }))[0]?.n ?? 0);

  // A key may hold 5 streams open: each test has keys of its own.
  beforeEach(async () => {
    if (!stack) return;
    const account = await createAccount(stack.db.knex);
    testKey = account.test.secret;
    liveKey = account.live.secret;
  });

  afterAll(async () => {
    for (const connection of open) connection.close();
    await stack?.close();
  });

  test('events arrive in the order they happened, framed as id / event / data, with the event object', async () => {
    const live = await stream(testKey, '?types=esim.*');
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(live.headers.get('request-id')).toMatch(/^req_/);
    expect(live.headers.get('ratelimit-policy')).toBeTruthy();
    const order = await buy(testKey);
    const esim = order.esims[0];
    await live.waitFor(1);
    await move(testKey, esim?.id ?? '', 'installed');
    await live.waitFor(2);
    await move(testKey, esim?.id ?? '', 'active');
    const messages = await live.waitFor(3);
    expect(messages.map((m) => m.event)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);

    const stored = await storedEvents(testKey, (events) => eventsOf(order)(events).length === 3);
    for (const message of messages) {
      const event = JSON.parse(message.data) as ApiEvent;
      expect(event.id).toBe(message.id);
      expect(event.type).toBe(message.event);
      expect(event).toEqual(stored.find((candidate) => candidate.id === message.id));
      // One message is exactly three lines and a blank one.
      expect(live.raw).toContain(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    // Keepalive comments while idle, more often here than the 15 s default.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(live.comments).toContain('keepalive');
  });

  test('an open stream counts once in the rate limit, however long it stays open', async () => {
    const remaining = async () => Number((await stack.call(testKey, 'GET', '/v1/version')).headers.get('ratelimit-remaining'));
    const before = await remaining();
    const live = await stream(testKey);
    expect(Number(live.headers.get('ratelimit-remaining'))).toBe(before - 1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(live.comments.filter((comment) => comment === 'keepalive').length).toBeGreaterThan(0);
    expect(await remaining()).toBe(before - 2);
  });

  test('a key holds at most 5 streams open: the 6th is 429 rate_limited with the error object and Retry-After; closing one frees its place at once', async () => {
    const five = await Promise.all(Array.from({ length: 5 }, () => stream(testKey)));
    expect(five.map((connection) => connection.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await stream(testKey);
    expect(sixth.status).toBe(429);
    expect(sixth.errorBody?.error).toMatchObject({ code: 'rate_limited' });
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key of the account has its own five.
    const other = await createAccount(stack.db.knex);
    expect((await stream(other.test.secret)).status).toBe(200);
    const before = await leases();
    five[0]?.close();
    await expect.poll(leases, { timeout: 2_000 }).toBe(before - 1);
    expect((await stream(testKey)).status).toBe(200);
  });

  test('a live key is 403 live_key_test_resource, a key without events:read 403 key_out_of_scope', async () => {
    const refused = await stream(liveKey);
    expect(refused.status).toBe(403);
    expect(refused.errorBody?.error.code).toBe('live_key_test_resource');

    const other = await createAccount(stack.db.knex);
    await stack.db
      .knex('gateway.api_keys')
      .where({ id: other.test.key.id })
      .update({ scopes: ['esim:read', 'esim:write'] });
    const outOfScope = await stream(other.test.secret);
    expect(outOfScope.status).toBe(403);
    expect(outOfScope.errorBody?.error.code).toBe('key_out_of_scope');
  });

  test('bad input gets the error object: a types filter that is not one, an unknown Last-Event-ID', async () => {
    const badTypes = await stream(testKey, '?types=esim.;drop');
    expect(badTypes.status).toBe(400);
    expect(badTypes.errorBody?.error).toMatchObject({ code: 'invalid_parameter', param: 'types' });
    const unknown = await stream(testKey, '', { 'last-event-id': 'evt_00000000000000000000000000' });
    expect(unknown.status).toBe(400);
    expect(unknown.errorBody?.error).toMatchObject({ code: 'invalid_parameter', param: 'Last-Event-ID' });
    const tooLong = await stream(testKey, '', { 'last-event-id': `evt_${'x'.repeat(200)}` });
    expect(tooLong.errorBody?.error).toMatchObject({ code: 'invalid_parameter', param: 'Last-Event-ID' });
    const unknownQuery = await stream(testKey, '?last_event_id=evt_00000000000000000000000000');
    expect(unknownQuery.errorBody?.error).toMatchObject({ code: 'invalid_parameter', param: 'last_event_id' });
    const unknownParameter = await stream(testKey, '?since=1');
    expect(unknownParameter.errorBody?.error).toMatchObject({ code: 'invalid_parameter', param: 'since' });
  });

  test('after a disconnect, Last-Event-ID resumes with nothing lost: what was stored meanwhile comes first, in order', async () => {
    const first = await stream(testKey, '?types=esim.*');
    const before = await buy(testKey);
    const [seen] = await first.waitFor(1);
    expect(seen?.id).toBeDefined();
    expect(JSON.parse(seen?.data ?? '{}')).toMatchObject({ data: { object: { id: before.esims[0]?.id } } });
    first.close();

    // Made while no stream is open.
    const meanwhile = await buy(testKey, 3);
    const stored = await storedEvents(testKey, (events) => eventsOf(meanwhile)(events).length === 3);
    const missed = eventsOf(meanwhile)(stored)
      .map((event) => event.id)
      .sort();

    const resumed = await stream(testKey, '?types=esim.*', { 'last-event-id': seen?.id ?? '' });
    const caughtUp = await resumed.waitFor(3);
    expect(caughtUp.map((m) => m.id).sort()).toEqual(missed);
    // ... and it goes on live.
    await buy(testKey);
    await resumed.waitFor(4);
    // The query parameter resumes the same way (for clients that cannot set headers).
    const byQuery = await stream(testKey, `?types=esim.*&last_event_id=${seen?.id ?? ''}`);
    expect((await byQuery.waitFor(4)).map((m) => m.id)).toEqual(resumed.messages.slice(0, 4).map((m) => m.id));
  });

  test('a replay reaches an open stream with the same event id', async () => {
    const order = await buy(testKey);
    const [event] = eventsOf(order)(await storedEvents(testKey, (events) => eventsOf(order)(events).length === 1));
    // Of the replayed event's type: the account's other events (those of its making, which reach
    // the stream by another service's outbox) may still arrive after it opens, before the replay.
    const live = await stream(testKey, `?types=${event?.type ?? ''}`);
    const replayed = await stack.call(testKey, 'POST', '/v1/events/replay', { event: event?.id });
    expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
    const [message] = await live.waitFor(1);
    expect(message?.id).toBe(event?.id);
    expect(JSON.parse(message?.data ?? '{}')).toEqual(event);

    // Resuming from a replayed event loses nothing either: it resumes after the event's first
    // place in the stream, so the replay and everything since come (again).
    const after = await buy(testKey);
    const [afterEvent] = eventsOf(after)(await storedEvents(testKey, (events) => eventsOf(after)(events).length === 1));
    const resumed = await stream(testKey, '?types=esim.*', { 'last-event-id': event?.id ?? '' });
    expect((await resumed.waitFor(2)).map((m) => m.id)).toEqual([event?.id, afterEvent?.id]);
  });

  test('another account’s events never appear', async () => {
    const other = await createAccount(stack.db.knex);
    const mine = await stream(testKey);
    const theirs = await stream(other.test.secret);
    const theirOrder = await buy(other.test.secret, 2);
    await storedEvents(other.test.secret, (events) => eventsOf(theirOrder)(events).length === 2);
    // A later event of mine: had theirs come to my stream, they would be before it.
    const myOrder = await buy(testKey);
    const myEvents = eventsOf(myOrder)(await storedEvents(testKey, (events) => eventsOf(myOrder)(events).length === 1));
    await expect.poll(() => mine.messages.some((m) => m.id === myEvents[0]?.id), { timeout: 15_000 }).toBe(true);
    const myIds = new Set((await storedEvents(testKey, () => true)).map((event) => event.id));
    for (const message of mine.messages) expect(myIds.has(message.id ?? '')).toBe(true);
    const theirIds = (await theirs.waitFor(2)).map((m) => m.id);
    for (const id of theirIds) expect(mine.messages.some((m) => m.id === id)).toBe(false);
  });

  test('stopping the stack ends open streams at once (a drain does not wait for them)', async () => {
    const live = await stream(testKey);
    const started = Date.now();
    await stack.close();
    await live.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
    stack = undefined as unknown as LocalStack;
  });
});
