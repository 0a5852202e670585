import { buildEvent, type InternalEvent } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeAndQueue } from '../src/db/events-repository.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

/**
 * The consumer stores the events of the messages it handles at once with ONE statement: each
 * event is stored once, its deliveries queued, and the stream entries of one account numbered
 * in the batch's order after what was there.
 */
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

const event = (who: ReturnType<typeof caller>, at: number): InternalEvent =>
  buildEvent({
    type: 'esim.activated',
    environment: who.environment,
    accountId: who.accountId,
    data: { object: esim('active'), previous_state: 'installed' },
    now: new Date(at),
  });
const entries = async (accountId: string) =>
  (
    (await h.db.knex('notifications.stream_entries').where({ account_id: accountId, environment: 'test' }).orderBy('seq')) as {
      seq: string | number;
      event_id: string;
    }[]
  ).map((entry) => [Number(entry.seq), entry.event_id]);
const deliveries = async (eventId: string) =>
  Number((await h.db.knex('notifications.deliveries').where({ event_id: eventId }).count<{ count: string }[]>('* as count'))[0]?.count);

describe('storeAndQueue, a batch in one statement', () => {
  it('stores each event once, queues per matching endpoint, and numbers stream entries in batch order', async () => {
    const me = caller(newAccount(), 'test');
    const other = caller(newAccount(), 'test');
    const live = caller(newAccount(), 'live');
    await h.endpoint(me, receiver.url('/me'), ['*']);
    await h.endpoint(me, receiver.url('/me-too'), ['esim.activated']);
    await h.endpoint(other, receiver.url('/other'), ['esim.expired']);

    const t = Date.now();
    const earlier = event(me, t);
    const queued = (results: Awaited<ReturnType<typeof storeAndQueue>>) => results.map((result) => result?.queued);
    expect(queued(await storeAndQueue(h.db.knex, [{ event: earlier, traceContext: {} }], new Date(), 10_000))).toEqual([2]);

    const [a, b, c] = [event(me, t + 1), event(me, t + 2), event(me, t + 3)];
    const theirs = event(other, t + 4);
    const liveOne = event(live, t + 5);
    const results = await storeAndQueue(
      h.db.knex,
      [a, theirs, b, earlier, liveOne, b, c].map((e) => ({ event: e, traceContext: { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` } })),
      new Date(),
      10_000,
    );
    // Already stored, or twice in the batch: undefined, nothing queued again.
    expect(queued(results)).toEqual([2, 0, 2, undefined, 0, undefined, 2]);
    for (const e of [earlier, a, b, c]) expect(await deliveries(e.id)).toBe(2);
    expect(await deliveries(theirs.id)).toBe(0);
    expect(await entries(me.accountId)).toEqual([
      [1, earlier.id],
      [2, a.id],
      [3, b.id],
      [4, c.id],
    ]);
    expect(await entries(other.accountId)).toEqual([[1, theirs.id]]);
    expect(await entries(live.accountId)).toEqual([]);
    const stored = await h.db
      .knex('notifications.events')
      .where({ id: b.id })
      .first<{ envelope: Record<string, unknown>; trace_context: Record<string, string>; account_id: string }>();
    const { account_id: _accountId, ...envelope } = b;
    expect(stored?.envelope).toEqual(envelope);
    expect(stored?.account_id).toBe(me.accountId);
    expect(stored?.trace_context.traceparent).toMatch(/^00-1{32}-2{16}-01$/);
  });
});
