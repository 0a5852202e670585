import type { EventType } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  h = await Harness.create();
  await h.start();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

/** A test endpoint on the receiver at `path`, its secret registered there. */
async function hook(who: ReturnType<typeof caller>, path: string, events: string[] = ['*']) {
  const endpoint = await h.endpoint(who, receiver.url(path), events);
  receiver.secret(path, endpoint.secret);
  return endpoint;
}

async function attempts(who: ReturnType<typeof caller>, endpointId: string) {
  const res = await h.get(who, `/v1/webhooks/${endpointId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.data as Record<string, unknown>[]).reverse();
}

describe('webhook delivery', () => {
  it('delivers each state event, signed per Standard Webhooks, with the public envelope', async () => {
    const me = caller(newAccount(), 'test');
    await hook(me, '/all');
    await hook(me, '/activated-only', ['esim.activated']);
    const states: [EventType, string, string | null][] = [
      ['esim.released', 'released', null],
      ['esim.installed', 'installed', 'released'],
      ['esim.activated', 'active', 'installed'],
      ['esim.suspended', 'suspended', 'active'],
      ['esim.expired', 'expired', 'suspended'],
    ];
    const published = [];
    for (const [type, state, previous] of states) {
      published.push(await h.publish(me, type, { object: esim(state as 'active'), previous_state: previous }));
    }
    await eventually(() => receiver.hits('/all').length === 5, 10_000, 'five deliveries');
    const got = receiver.hits('/all');
    expect(got.map((r) => r.id).sort()).toEqual(published.map((e) => e.id).sort());
    for (const r of got) {
      const sent = published.find((e) => e.id === r.id);
      const { account_id: _hidden, ...envelope } = sent!;
      expect(r.event).toEqual(envelope);
      expect(r.event).not.toHaveProperty('account_id');
      expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    }
    await eventually(() => receiver.hits('/activated-only').length === 1);
    expect(receiver.hits('/activated-only')[0]?.event.type).toBe('esim.activated');
    expect(receiver.rejected).toEqual([]);
  });

  it('delivers the 50, 80 and 100 percent usage thresholds', async () => {
    const me = caller(newAccount(), 'test');
    await hook(me, '/thresholds', ['esim.usage.threshold']);
    const limit = 1_000_000_000;
    for (const percent of [50, 80, 100]) {
      const used = (limit * percent) / 100;
      await h.publish(me, 'esim.usage.threshold', {
        object: esim('active', { data_used_bytes: used }),
        threshold_percent: percent,
        data_used_bytes: used,
        data_limit_bytes: limit,
      });
    }
    await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/thresholds').length === 3);
    expect(
      receiver
        .hits('/thresholds')
        .map((r) => r.event.data.threshold_percent)
        .sort(),
    ).toEqual([100, 50, 80]);
    expect(receiver.hits('/thresholds').every((r) => r.event.type === 'esim.usage.threshold')).toBe(true);
  });

  it('retries a failing receiver on the schedule and records every attempt', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await hook(me, '/flaky');
    receiver.reply('/flaky', (n) => ({ status: n <= 2 ? 500 : 200 }));
    const event = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/flaky').length === 3, 10_000, 'three attempts');
    const hits = receiver.hits('/flaky');
    expect(hits.every((r) => r.id === event.id)).toBe(true);
    // The schedule is 100 ms then 200 ms, jitter 0: no retry comes sooner.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(90);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(190);

    const recorded = await eventually(async () => {
      const list = await attempts(me, endpoint.id);
      return list.length === 3 && list;
    });
    expect(recorded.map((a) => [a.attempt, a.status, a.status_code])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
      [3, 'succeeded', 200],
    ]);
    expect(recorded[0]).toMatchObject({ object: 'webhook_delivery_attempt', event: event.id, event_type: 'esim.activated', endpoint: endpoint.id });
    expect(recorded[0]!.id).toMatch(/^msgatt_[0-9a-z]{26}$/);
    expect(recorded[0]!.error).toBe('http_status');
    expect(recorded[0]!.next_retry_at).toEqual(expect.any(Number));
    expect(recorded[2]!.next_retry_at).toBeNull();
    expect(recorded[2]!.error).toBeNull();
  });

  it('gives up after the last attempt of the schedule', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await hook(me, '/down');
    receiver.reply('/down', () => ({ status: 502 }));
    await h.publish(me, 'esim.suspended', { object: esim('suspended'), previous_state: 'active' });
    // Three retries after the first attempt: four in all, the last with no next retry.
    const recorded = await eventually(async () => {
      const list = await attempts(me, endpoint.id);
      return list.length === 4 && list;
    });
    expect(recorded.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(recorded[3]!.next_retry_at).toBeNull();
    const row = await h.db.knex('notifications.deliveries').where({ endpoint_id: endpoint.id }).first();
    expect(row.status).toBe('failed');
  });

  it('disables an endpoint that answers 410 Gone at once', async () => {
    const me = caller(newAccount(), 'test');
    const gone = await hook(me, '/gone');
    await hook(me, '/sibling');
    receiver.reply('/gone', () => ({ status: 410 }));
    await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
    const disabled = await eventually(async () => {
      const res = await h.get(me, `/v1/webhooks/${gone.id}`);
      const body = res.body as { disabled: boolean; disabled_reason: string | null };
      return body.disabled && body;
    });
    expect(disabled.disabled_reason).toContain('410');
    const second = await h.publish(me, 'esim.installed', { object: esim('installed'), previous_state: 'released' });
    await eventually(() => receiver.hits('/sibling').some((r) => r.id === second.id));
    expect(receiver.hits('/gone')).toHaveLength(1);
    expect(await attempts(me, gone.id)).toHaveLength(1);
  });

  it('honours Retry-After on 429 and 503', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await hook(me, '/busy');
    receiver.reply('/busy', (n) =>
      n === 1 ? { status: 503, headers: { 'retry-after': '1' } } : n === 2 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 },
    );
    await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/busy').length === 3, 15_000);
    const hits = receiver.hits('/busy');
    // The schedule alone would retry after 100 and 200 ms; the receiver asked for a second each time.
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(990);
    expect(hits[2]!.at - hits[1]!.at).toBeGreaterThanOrEqual(990);
    const recorded = await eventually(async () => {
      const list = await attempts(me, endpoint.id);
      return list.length === 3 && list;
    });
    expect(recorded.map((a) => a.status_code)).toEqual([503, 429, 204]);
  });

  it('keeps test and live apart: each event reaches only endpoints of its account and environment', async () => {
    const account = newAccount();
    const test = caller(account, 'test');
    const live = caller(account, 'live');
    await hook(test, '/sep-test');
    await hook(caller(newAccount(), 'test'), '/sep-stranger');
    // A public name at creation that later points at loopback: the delivery-time check must refuse it.
    h.dns.set('rebind.example.com', ['93.184.216.34']);
    const liveEndpoint = await h.endpoint(live, 'https://rebind.example.com/hook');
    h.dns.set('rebind.example.com', ['127.0.0.1']);

    const testEvent = await h.publish(test, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    const liveEvent = await h.publish(live, 'esim.activated', { object: esim('active', { simulated: false }), previous_state: 'installed' });
    await eventually(() => receiver.hits('/sep-test').length === 1);
    expect(receiver.hits('/sep-test')[0]!.id).toBe(testEvent.id);

    const liveAttempts = await eventually(async () => {
      const list = await attempts(live, liveEndpoint.id);
      return list.length >= 1 && list;
    });
    expect(liveAttempts.every((a) => a.event === liveEvent.id)).toBe(true);
    expect(liveAttempts[0]!.status).toBe('failed');
    expect(liveAttempts[0]!.status_code).toBeNull();
    // A class, never what the name resolved to.
    expect(liveAttempts[0]!.error).toBe('connection_error');

    const ids = async (who: ReturnType<typeof caller>) => ((await h.get(who, '/v1/events')).body as { data: { id: string }[] }).data.map((e) => e.id);
    expect(await ids(test)).toEqual([testEvent.id]);
    expect(await ids(live)).toEqual([liveEvent.id]);
    expect(receiver.hits('/sep-stranger')).toHaveLength(0);
    expect(receiver.hits('/sep-test')).toHaveLength(1);
  });
});

describe('replay', () => {
  it('replays one event by id with the same id and a fresh signature', async () => {
    const me = caller(newAccount(), 'test');
    await hook(me, '/replay-one');
    // Ten minutes old: a signature made at event time would fail the receiver's 5-minute tolerance.
    const old = await h.publish(me, 'esim.expired', { object: esim('expired'), previous_state: 'active' }, new Date(Date.now() - 600_000));
    await eventually(() => receiver.hits('/replay-one').length === 1);
    const res = await h.post(me, '/v1/events/replay', { event: old.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'replay', queued: 1, endpoints: 1, since: null, event: old.id });
    await eventually(() => receiver.hits('/replay-one').length === 2);
    const [first, again] = receiver.hits('/replay-one');
    expect(again!.id).toBe(old.id);
    expect(again!.event).toEqual(first!.event);
    expect(again!.timestamp).toBeGreaterThanOrEqual(first!.timestamp);
    expect(receiver.rejected).toEqual([]);
  });

  it('replays every event since a time, or the last 24 hours, in the caller environment only', async () => {
    const account = newAccount();
    const me = caller(account, 'test');
    const live = caller(account, 'live');
    await hook(me, '/replay-since');
    const now = Date.now();
    const twoDays = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null }, new Date(now - 48 * 3_600_000));
    const threeHours = await h.publish(me, 'esim.installed', { object: esim('installed'), previous_state: 'released' }, new Date(now - 3 * 3_600_000));
    const thirtyMin = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' }, new Date(now - 1_800_000));
    await h.publish(live, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/replay-since').length === 3);

    const since = Math.floor((now - 4 * 3_600_000) / 1000);
    const res = await h.post(me, '/v1/events/replay', { since });
    expect(res.body).toEqual({ object: 'replay', queued: 2, endpoints: 1, since, event: null });
    await eventually(() => receiver.hits('/replay-since').length === 5);
    expect(
      receiver
        .hits('/replay-since')
        .slice(3)
        .map((r) => r.id)
        .sort(),
    ).toEqual([threeHours.id, thirtyMin.id].sort());

    const all = await h.post(me, '/v1/events/replay');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'replay', queued: 2, endpoints: 1, event: null });
    expect(all.body.since).toBeGreaterThanOrEqual(Math.floor(now / 1000) - 86_400);
    await eventually(() => receiver.hits('/replay-since').length === 7);
    expect(receiver.hits('/replay-since').some((r, i) => i >= 3 && r.id === twoDays.id)).toBe(false);
  });

  it('answers replay errors with the right code and param', async () => {
    const account = newAccount();
    const me = caller(account, 'test');
    await hook(me, '/replay-errors');
    const liveEvent = await h.publish(caller(account, 'live'), 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    const barrier = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/replay-errors').some((r) => r.id === barrier.id));
    const check = async (body: unknown, status: number, code: string, param: string) => {
      const res = await h.post(me, '/v1/events/replay', body);
      expect(res.status).toBe(status);
      expect(res.body.error).toMatchObject({ code, param });
    };
    await check({ event: 'evt_01jdoesnotexist0000000000' }, 404, 'resource_not_found', 'event');
    await check({ event: liveEvent.id }, 404, 'resource_not_found', 'event');
    await check({ event: barrier.id, since: 1 }, 400, 'invalid_parameter', 'event');
    await check({ since: 'yesterday' }, 400, 'invalid_parameter', 'since');
    await check({ since: 1.5 }, 400, 'invalid_parameter', 'since');
    await check({ since: -1 }, 400, 'invalid_parameter', 'since');
    await check({ events: [] }, 400, 'invalid_parameter', 'events');
  });
});
