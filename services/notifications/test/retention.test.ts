import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * Each test stores old events under an instance that keeps 60 days, then restarts the service
 * with the default 30 days (pruning on every loop of the worker), so "stored, then pruned" is
 * observed rather than inferred. A failed delivery waits a minute for its retry: it stays
 * pending while pruning runs.
 */
// Test events too (their own retention, 30 days by default, record 0213): else the instance's first
// sweep, when a loaded machine runs it after the events are stored, prunes the 31-day-old one early.
const KEEP_60_DAYS = { EVENT_RETENTION_MS: String(60 * DAY), TEST_DATA_RETENTION_MS: String(60 * DAY), WEBHOOK_RETRY_SCHEDULE_MS: '60000' };
const KEEP_DEFAULT = { RETENTION_SWEEP_INTERVAL_MS: '1', WEBHOOK_RETRY_SCHEDULE_MS: '60000' };

let receiver: Receiver;
let h: Harness;
beforeAll(async () => {
  receiver = await Receiver.start();
  h = await Harness.create();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});
afterEach(async () => {
  for (const instance of [...h.instances]) await h.stop(instance);
});

/** Stops the 60-day instance and starts one with the default retention. */
async function restartWithDefaultRetention(): Promise<void> {
  for (const instance of [...h.instances]) await h.stop(instance);
  await h.start(KEEP_DEFAULT);
}

const eventIds = async (who: Caller) => ((await h.get(who, '/v1/events?limit=100')).body.data as { id: string }[]).map((e) => e.id);
const count = async (table: string, where: Record<string, string>) =>
  Number((await h.db.knex(`notifications.${table}`).where(where).count<{ n: string }[]>({ n: '*' }))[0]?.n);

describe('retention', () => {
  it('prunes events older than 30 days with their deliveries and attempts, and keeps the rest', async () => {
    await h.start(KEEP_60_DAYS);
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, receiver.url('/retention'));
    receiver.secret('/retention', endpoint.secret);
    const recent = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' }, daysAgo(29));
    const old = await h.publish(me, 'esim.installed', { object: esim('installed'), previous_state: 'released' }, daysAgo(31));
    await eventually(async () => (await count('attempts', { endpoint_id: endpoint.id })) === 2, 10_000, 'both deliveries recorded');
    expect((await eventIds(me)).sort()).toEqual([recent.id, old.id].sort());

    await restartWithDefaultRetention();
    await eventually(async () => (await count('events', { id: old.id })) === 0, 10_000, 'the old event pruned');

    expect(await eventIds(me)).toEqual([recent.id]);
    expect(await count('deliveries', { event_id: old.id })).toBe(0);
    expect(await count('attempts', { event_id: old.id })).toBe(0);
    expect(await count('attempts', { event_id: recent.id })).toBe(1);
    // The event stream's entries go with their event (a resume from it is then refused, not silent).
    expect(await count('stream_entries', { event_id: old.id })).toBe(0);
    expect(await count('stream_entries', { event_id: recent.id })).toBe(1);
    const attempts = (await h.get(me, `/v1/webhooks/${endpoint.id}/deliveries`)).body.data as { event: string }[];
    expect(attempts.map((a) => a.event)).toEqual([recent.id]);
    const replay = await h.post(me, '/v1/events/replay', { event: old.id });
    expect(replay.status).toBe(404);
    expect(replay.body.error).toMatchObject({ code: 'resource_not_found', param: 'event' });
  });

  it('prunes old events that went to no endpoint', async () => {
    await h.start(KEEP_60_DAYS);
    const me = caller(newAccount(), 'test');
    const old = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null }, daysAgo(45));
    await eventually(async () => (await eventIds(me)).includes(old.id), 10_000, 'the old event stored');

    await restartWithDefaultRetention();
    await eventually(async () => (await count('events', { id: old.id })) === 0, 10_000, 'the old event pruned');
    expect(await eventIds(me)).toEqual([]);
  });

  it('keeps an old event while a delivery of it is still pending', async () => {
    await h.start(KEEP_60_DAYS);
    const slow = caller(newAccount(), 'test');
    const failing = await h.endpoint(slow, receiver.url('/retention-failing'));
    receiver.secret('/retention-failing', failing.secret);
    receiver.reply('/retention-failing', () => ({ status: 500 }));
    const pending = await h.publish(slow, 'esim.suspended', { object: esim('suspended'), previous_state: 'active' }, daysAgo(40));
    await eventually(async () => (await count('attempts', { event_id: pending.id })) === 1, 10_000, 'the first, failing attempt');
    const other = caller(newAccount(), 'test');
    const done = await h.publish(other, 'esim.released', { object: esim('released'), previous_state: null }, daysAgo(40));
    await eventually(async () => (await count('events', { id: done.id })) === 1, 10_000, 'the other old event stored');

    // The other old event going shows a pruning pass ran while the delivery was pending.
    await restartWithDefaultRetention();
    await eventually(async () => (await count('events', { id: done.id })) === 0, 10_000, 'the other old event pruned');
    expect(await count('deliveries', { event_id: pending.id, status: 'pending' })).toBe(1);
    expect(await eventIds(slow)).toEqual([pending.id]);
    expect(await count('attempts', { event_id: pending.id })).toBe(1);
  });
});
