import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';

/**
 * The event stream's log (stream_entries), written with each stored test event and each replay:
 * numbered per account and environment without gaps or repeats, also with two instances
 * consuming at once; live events get none; the service itself refuses a live caller.
 */
let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.start();
  await h.start();
});
afterAll(async () => {
  await h?.close();
});

const entries = async (accountId: string, environment: string) =>
  (await h.db.knex('notifications.stream_entries').where({ account_id: accountId, environment }).orderBy('seq')) as {
    seq: string | number;
    event_id: string;
    replay: boolean;
  }[];

describe('the stream log', () => {
  it('numbers every stored test event of an account 1..n, once each, with two instances consuming', async () => {
    const me = caller(newAccount(), 'test');
    const other = caller(newAccount(), 'test');
    const published = [];
    for (let i = 0; i < 30; i += 1)
      published.push(await h.publish(i % 3 === 0 ? other : me, 'esim.activated', { object: esim('active'), previous_state: 'installed' }));
    await eventually(
      async () => (await entries(me.accountId, 'test')).length === 20 && (await entries(other.accountId, 'test')).length === 10,
      15_000,
      'all stored',
    );
    const mine = await entries(me.accountId, 'test');
    expect(mine.map((entry) => Number(entry.seq))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(mine.map((entry) => entry.event_id))).toEqual(new Set(published.filter((_, i) => i % 3 !== 0).map((event) => event.id)));
    expect(mine.every((entry) => !entry.replay)).toBe(true);
  });

  it('gives live events no entries, and a replay appends its events after the head, flagged, oldest first', async () => {
    const account = newAccount();
    const test = caller(account, 'test');
    const live = caller(account, 'live');
    const first = await h.publish(test, 'esim.installed', { object: esim('installed'), previous_state: 'released' }, new Date(Date.now() - 60_000));
    await eventually(async () => (await entries(account, 'test')).length === 1, 10_000, 'first stored');
    const second = await h.publish(test, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await h.publish(live, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(async () => (await entries(account, 'test')).length === 2, 10_000, 'second stored');
    await eventually(async () => (await h.get(live, '/v1/events')).body.data.length === 1, 10_000, 'live stored');
    expect(await entries(account, 'live')).toEqual([]);

    const since = Math.floor(Date.now() / 1000) - 3_600;
    const replay = await h.post(test, '/v1/events/replay', { since });
    expect(replay.status).toBe(200);
    // The replay worker appends them in its batch.
    await eventually(async () => (await entries(account, 'test')).length === 4, 10_000, 'the replayed entries');
    expect((await entries(account, 'test')).map((entry) => [Number(entry.seq), entry.event_id, entry.replay])).toEqual([
      [1, first.id, false],
      [2, second.id, false],
      [3, first.id, true],
      [4, second.id, true],
    ]);
    // A live replay writes nothing to a stream.
    expect((await h.post(live, '/v1/events/replay', { since })).status).toBe(200);
    await eventually(
      async () => (await h.db.knex('notifications.replays').where({ account_id: account, environment: 'live', status: 'finished' })).length === 1,
      10_000,
      'the live replay',
    );
    expect(await entries(account, 'live')).toEqual([]);
  });

  it('refuses a live caller itself (403 live_key_test_resource), and bad input with the error object', async () => {
    const live = caller(newAccount(), 'live');
    const refused = await h.get(live, '/v1/events/stream');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('live_key_test_resource');
    const test = caller(newAccount(), 'test');
    const bad = await h.get(test, '/v1/events/stream?types=ESIM');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'types' });
    const unknown = await h.get(test, '/v1/events/stream').set('last-event-id', 'evt_unknown');
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'Last-Event-ID' });
  });
});
