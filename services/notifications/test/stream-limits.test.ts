import type { StartedService } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamItem } from '../src/db/stream-repository.ts';
import { StreamHubs } from '../src/workers/stream-hub.ts';
import { subscribeStream } from '../src/use-cases/subscribe-stream.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, gatewayHeaders, newAccount, type Caller } from './support/harness.ts';
import { listenOn, openStream, type OpenedStream } from './support/sse-client.ts';

/**
 * Open event streams are bounded: at most 5 per API key across every instance (a lease row per
 * stream, renewed while open, gone when it closes, expired when its instance died), and the
 * streams of one account and environment share ONE database read per wake (the scope's hub).
 */
const LEASE_MS = 900;
let h: Harness;
let one: { instance: StartedService; url: string; close(): Promise<void> };
let two: { instance: StartedService; url: string; close(): Promise<void> };
const opened: OpenedStream[] = [];

beforeAll(async () => {
  h = await Harness.create({ STREAM_POLL_INTERVAL_MS: '100', STREAM_LEASE_MS: String(LEASE_MS), STREAM_KEEPALIVE_MS: '60000' });
  const start = async () => {
    const instance = await h.start();
    return { instance, ...(await listenOn(instance.app)) };
  };
  one = await start();
  two = await start();
});
afterAll(async () => {
  for (const stream of opened) stream.close();
  await one?.close();
  await two?.close();
  await h?.close();
});

const open = async (on: { url: string }, who: Caller, headers: Record<string, string> = {}) => {
  const stream = await openStream(on.url, { ...gatewayHeaders(who), ...headers });
  opened.push(stream);
  return stream;
};
const leasesOf = async (who: Caller) => Number((await h.db.knex('notifications.stream_leases').where({ key_id: who.keyId }).count({ n: '*' }))[0]?.n ?? 0);
const publish = (who: Caller) => h.publish(who, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
/**
 * The account's stream as stored, once it holds `count` entries: the order every stream must
 * keep (events consumed by two instances at once are stored in an order of their own).
 */
const storedOrder = (who: Caller, count: number) =>
  eventually(
    async () => {
      const rows = await h.db
        .knex('notifications.stream_entries')
        .where({ account_id: who.accountId, environment: 'test' })
        .orderBy('seq')
        .select<{ event_id: string }[]>('event_id');
      return rows.length >= count && rows.map((row) => row.event_id);
    },
    10_000,
    `${count} stream entries`,
  );

describe('stream cap', () => {
  it('gives a key at most 5 open streams across instances: the 6th is 429 rate_limited with the error object and Retry-After', async () => {
    const me = caller(newAccount(), 'test');
    const streams = [await open(one, me), await open(two, me), await open(one, me), await open(two, me), await open(one, me)];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200, 200, 200]);
    for (const on of [one, two]) {
      const refused = await open(on, me);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: { type: 'rate_limit', code: 'rate_limited', link: 'https://api.example.test/v1/errors/rate_limited' } });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await leasesOf(me)).toBe(5);
    // Another key of the same account has its own five.
    expect((await open(one, { ...me, keyId: `${me.keyId}x` })).status).toBe(200);

    // A client that leaves frees its place at once.
    const started = Date.now();
    streams[1]?.close();
    await eventually(async () => (await leasesOf(me)) === 4, 2_000, 'the lease freed');
    expect(Date.now() - started).toBeLessThan(1_000);
    expect((await open(two, me)).status).toBe(200);
  });

  it('renews the lease of an open stream; the leases of an instance that died expire, and stop counting', async () => {
    const me = caller(newAccount(), 'test');
    const extra = await h.start();
    const dying = await listenOn(extra.app);
    try {
      for (let i = 0; i < 5; i += 1) expect((await open(dying, me)).status).toBe(200);
      // Three lease periods later they are still held: renewed.
      await new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS));
      expect(await leasesOf(me)).toBe(5);
      expect((await open(one, me)).status).toBe(429);
      // The instance stops renewing (as if it died with its streams open): their leases run out.
      await h.stop(extra);
      await eventually(async () => (await open(one, me)).status === 200, 5 * LEASE_MS, 'a stream after the leases expired');
    } finally {
      await dying.close();
    }
  });
});

describe('one read per account and environment', () => {
  it('serves every open stream of an account from one database read per wake, in order, each event once', async () => {
    const me = caller(newAccount(), 'test');
    const reads: string[] = [];
    const count = (query: { sql: string; bindings?: unknown[] }) => {
      if (query.sql.includes('stream_entries') && query.bindings?.includes(me.accountId)) reads.push(query.sql);
    };
    h.db.knex.on('query', count);
    try {
      const streams = [];
      for (let i = 0; i < 4; i += 1) streams.push(await open(one, { ...me, keyId: `${me.keyId}${i}` }));
      // Each has caught up (its own first read) and joined; from now on only the hub reads.
      await new Promise((resolve) => setTimeout(resolve, 300));
      reads.length = 0;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // A safety poll every 100 ms: about ten reads in a second, where a read per stream would be forty.
      expect(reads.length).toBeGreaterThanOrEqual(5);
      expect(reads.length).toBeLessThanOrEqual(14);

      for (let i = 0; i < 5; i += 1) await publish(me);
      const expected = await storedOrder(me, 5);
      for (const stream of streams) expect(await stream.waitFor(5)).toEqual(expected);
    } finally {
      h.db.knex.off('query', count);
    }
  });

  it('a stream that resumes from an older Last-Event-ID catches up by itself, then joins: nothing lost, nothing doubled', async () => {
    const me = caller(newAccount(), 'test');
    const live = await open(one, me);
    for (let i = 0; i < 5; i += 1) await publish(me);
    const first = await storedOrder(me, 5);
    expect(await live.waitFor(5)).toEqual(first);
    const resumed = await open(one, me, { 'last-event-id': first[0] ?? '' });
    expect(await resumed.waitFor(4)).toEqual(first.slice(1));
    for (let i = 0; i < 5; i += 1) await publish(me);
    const all = await storedOrder(me, 10);
    expect(await live.waitFor(10)).toEqual(all);
    expect(await resumed.waitFor(9)).toEqual(all.slice(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed.ids).toHaveLength(9);
    expect(live.ids).toHaveLength(10);
  });

  it('a client too slow for the hub holds at most its buffer in memory, then reads the database at its own pace: order kept, nothing lost or doubled', async () => {
    const me = caller(newAccount(), 'test');
    const scope = { accountId: me.accountId, environment: 'test' as const };
    const hubs = new StreamHubs(h.db.knex, { safetyPollMs: 100, logger: h.logger });
    const hub = hubs.acquire(scope);
    hubs.acquire(scope);
    expect(hubs.size).toBe(1);
    const fast: string[] = [];
    const slow: string[] = [];
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const common = { knex: h.db.knex, hub, scope, afterSeq: 0, bufferLimit: 3, retryMs: 100, logger: h.logger };
    const a = subscribeStream({
      ...common,
      deliver: (item: StreamItem) => {
        fast.push(item.event.id);
        return Promise.resolve();
      },
    });
    const b = subscribeStream({
      ...common,
      deliver: async (item: StreamItem) => {
        await gate;
        slow.push(item.event.id);
      },
    });
    let mostBuffered = 0;
    const sampler = setInterval(() => (mostBuffered = Math.max(mostBuffered, b.buffered())), 2);
    try {
      await hub.ready;
      for (let i = 0; i < 20; i += 1) await publish(me);
      const published = await storedOrder(me, 20);
      await eventually(() => fast.length === 20, 10_000, 'the fast client');
      expect(mostBuffered).toBeLessThanOrEqual(3);
      openGate();
      await eventually(() => slow.length === 20, 10_000, 'the slow client');
      expect(slow).toEqual(published);
      expect(fast).toEqual(published);
      // Caught up, it joins the hub again and takes the next event from it.
      const next = (await publish(me)).id;
      await eventually(() => slow.length === 21 && fast.length === 21, 10_000, 'the next event');
      expect(slow.at(-1)).toBe(next);
    } finally {
      clearInterval(sampler);
      a.close();
      b.close();
      await hubs.stop();
    }
  });
});
