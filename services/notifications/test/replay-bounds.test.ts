import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../src/db/delivery-claims.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';

/**
 * POST /v1/events/replay is bounded work: a window of at most 30 days and at most
 * REPLAY_MAX_EVENTS events (here 5), queued as a replay that the worker works through in batches
 * (here of 2), one replay per account and environment at a time, and batches that wait while an
 * endpoint has more than WEBHOOK_MAX_PENDING_PER_ENDPOINT deliveries pending (here 3).
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create({
    REPLAY_MAX_EVENTS: '5',
    REPLAY_BATCH_SIZE: '2',
    WEBHOOK_MAX_PENDING_PER_ENDPOINT: '3',
    REPLAY_WAIT_MS: '100',
    // The gated receiver holds its answers: attempts stay under way (and pending) until it opens.
    WEBHOOK_TIMEOUT_MS: '30000',
    DELIVERY_LEASE_MS: '60000',
  });
  await h.start();
});
afterAll(async () => {
  await h?.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Publishes `count` events of `who`, one per second of the past (oldest first), and waits until they are stored. */
async function pastEvents(who: ReturnType<typeof caller>, count: number, secondsAgo: number) {
  const events = [];
  const first = nowSeconds() - secondsAgo;
  for (let i = 0; i < count; i += 1) {
    events.push(await h.publish(who, 'esim.activated', { object: esim('active'), previous_state: 'installed' }, new Date((first + i) * 1000)));
  }
  await eventually(async () => (await h.get(who, '/v1/events?limit=100')).body.data.length === count, 10_000, 'the events stored');
  return events;
}

/** A receiver that holds every request until `open()`, then answers 204 to all. */
async function gatedReceiver() {
  const held: http.ServerResponse[] = [];
  const ids: string[] = [];
  let open = false;
  const server = http.createServer((req, res) => {
    req.resume();
    ids.push(String(req.headers['webhook-id']));
    if (open) res.writeHead(204).end();
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids,
    open() {
      open = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const replayOf = async (accountId: string) =>
  (await h.db.knex('notifications.replays').where({ account_id: accountId }).orderBy('id')) as { total: number; done: number; status: string }[];
const pending = async (endpointId: string) =>
  Number((await h.db.knex('notifications.deliveries').where({ endpoint_id: endpointId, status: 'pending' }).count({ n: '*' }))[0]?.n ?? 0);

describe('bounded replay', () => {
  it('reaches back at most 30 days: an older since is 400 invalid_parameter, param since', async () => {
    const me = caller(newAccount(), 'test');
    const tooOld = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 30 * 86_400 - 60 });
    expect(tooOld.status).toBe(400);
    expect(tooOld.body.error).toMatchObject({ code: 'invalid_parameter', param: 'since' });
    expect(tooOld.body.error.message).toMatch(/30 days/);
    const oldest = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 30 * 86_400 + 60 });
    expect(oldest.status).toBe(200);
    expect(oldest.body).toMatchObject({ object: 'replay', queued: 0, endpoints: 0, event: null });
  });

  it('refuses a window of more events than one replay queues, naming the since that fits; that since is queued', async () => {
    const me = caller(newAccount(), 'test');
    const gate = await gatedReceiver();
    gate.open();
    try {
      await h.endpoint(me, gate.url);
      const events = await pastEvents(me, 8, 600);
      await eventually(() => events.every((event) => gate.ids.includes(event.id)), 10_000, 'the first deliveries');
      const refused = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 3_600 });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_parameter', param: 'since' });
      const fits = Number(/since=(\d+)/.exec(refused.body.error.message as string)?.[1]);
      // The newest five were made one second apart: the fitting window starts at the fifth newest.
      expect(fits).toBe(events[3]!.created_at);
      expect(await replayOf(me.accountId)).toEqual([]);

      const queued = await h.post(me, '/v1/events/replay', { since: fits });
      expect(queued.status).toBe(200);
      expect(queued.body).toEqual({ object: 'replay', queued: 5, endpoints: 1, since: fits, event: null });
      await eventually(async () => (await replayOf(me.accountId))[0]?.status === 'finished', 10_000, 'the replay finished');
      expect((await replayOf(me.accountId))[0]).toMatchObject({ total: 5, done: 5 });
      await eventually(() => gate.ids.length === 13, 10_000, 'five replayed deliveries');
      expect(gate.ids.slice(8).sort()).toEqual(
        events
          .slice(3)
          .map((event) => event.id)
          .sort(),
      );
    } finally {
      await gate.close();
    }
  });

  it('runs one replay per account and environment: a second one while it runs is 409 with Retry-After; its batches wait while the endpoint has too many pending; fresh events are never held back', async () => {
    const me = caller(newAccount(), 'test');
    const gate = await gatedReceiver();
    try {
      gate.open();
      const endpoint = await h.endpoint(me, gate.url);
      const events = await pastEvents(me, 5, 300);
      await eventually(() => gate.ids.length === 5, 10_000, 'the first deliveries');
      // From now on attempts hang: the deliveries queued stay pending.
      const held = await gatedReceiver();
      await h.patch(me, `/v1/webhooks/${endpoint.id}`, { url: held.url });
      try {
        const first = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 3_600 });
        expect(first.body).toMatchObject({ queued: 5, endpoints: 1 });
        // Batches of 2: after two of them 4 are pending, more than 3, so the third waits.
        await eventually(async () => (await replayOf(me.accountId))[0]?.done === 4, 10_000, 'two batches');
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect((await replayOf(me.accountId))[0]).toMatchObject({ status: 'running', done: 4, total: 5 });
        expect(await pending(endpoint.id)).toBe(4);

        const retryKey = `retry-${randomUUID()}`;
        const second = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 60 }, retryKey);
        expect(second.status).toBe(409);
        expect(second.body.error).toMatchObject({ code: 'already_exists' });
        expect(second.body.error.message).toMatch(/already running \(4 of 5 events queued\)/);
        expect(second.headers['retry-after']).toBe('10');
        // The other environment is another world.
        expect((await h.post(caller(me.accountId, 'live'), '/v1/events/replay', {})).status).toBe(200);

        // A fresh event is queued whatever is pending.
        const fresh = await h.publish(me, 'esim.suspended', { object: esim('suspended'), previous_state: 'active' });
        await eventually(async () => (await pending(endpoint.id)) === 5, 10_000, 'the fresh delivery queued');
        expect(await h.db.knex('notifications.deliveries').where({ event_id: fresh.id, replay: false })).toHaveLength(1);

        held.open();
        await eventually(async () => (await replayOf(me.accountId))[0]?.status === 'finished', 15_000, 'the replay finished');
        await eventually(() => held.ids.length === 6, 10_000, 'every delivery');
        expect(held.ids.filter((id) => id !== fresh.id).sort()).toEqual(events.map((event) => event.id).sort());

        // The 409 was not kept for its Idempotency-Key: the retry runs now.
        const retried = await h.post(me, '/v1/events/replay', { since: nowSeconds() - 60 }, retryKey);
        expect(retried.status).toBe(200);
        expect(retried.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        held.open();
        await held.close();
      }
    } finally {
      await gate.close();
    }
  });

  it('claims fresh deliveries before replayed ones, however long the replayed ones have waited', async () => {
    // A database of its own with no service running: nothing else claims the rows made here.
    const bare = await Harness.create();
    try {
      const knex = bare.db.knex;
      const accountId = newAccount();
      const time = new Date(Date.now() - 60_000);
      await knex('notifications.events').insert({
        id: 'evt_claimorder00000000000000000',
        account_id: accountId,
        environment: 'test',
        type: 'esim.activated',
        created_at: Math.floor(time.getTime() / 1000),
        occurred_at: time,
        envelope: JSON.stringify({ id: 'evt_claimorder00000000000000000' }),
      });
      await knex('notifications.endpoints').insert({
        id: 'we_claimorder000000000000000',
        account_id: accountId,
        environment: 'test',
        url: 'http://127.0.0.1:9/never',
        enabled_events: JSON.stringify(['*']),
        secret_sealed: 'sealed',
        created_at: 0,
        updated_at: 0,
      });
      const at = (msAgo: number) => new Date(Date.now() - msAgo);
      const delivery = (msAgo: number, replay: boolean) => ({
        event_id: 'evt_claimorder00000000000000000',
        endpoint_id: 'we_claimorder000000000000000',
        status: 'pending',
        next_attempt_at: at(msAgo),
        replay,
      });
      const rows = await knex('notifications.deliveries')
        .insert([delivery(60_000, true), delivery(50_000, true), delivery(1_000, false)])
        .returning<{ id: string | number }[]>('id');
      const ids = rows.map((row) => String(row.id));
      const now = new Date();
      const { claims: claimed } = await claimDue(knex, {
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
        limit: 2,
        token: randomUUID(),
        perEndpoint: 4,
        perAccount: 16,
      });
      expect(claimed.map((claim) => claim.deliveryId)).toEqual([ids[2], ids[0]]);
    } finally {
      await bare.close();
    }
  });
});
