import { buildEvent, eventSubject } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.start();
});
afterAll(async () => {
  await h?.close();
});

const listIds = async (who: ReturnType<typeof caller>, query = '') => {
  const res = await h.get(who, `/v1/events${query}`);
  expect(res.status).toBe(200);
  return res.body as { data: { id: string }[]; has_more: boolean; next_cursor: string | null };
};

describe('event log', () => {
  it('stores each event once, even when it arrives twice', async () => {
    const me = caller(newAccount(), 'test');
    const event = buildEvent({
      type: 'esim.activated',
      environment: 'test',
      accountId: me.accountId,
      data: { object: esim('active'), previous_state: 'installed' },
    });
    // Different message ids get past the bus's de-duplication, as a re-publish after its window would.
    await h.bus.publish({ id: event.id, subject: eventSubject('test', event.type), payload: event });
    await h.bus.publish({ id: `${event.id}-again`, subject: eventSubject('test', event.type), payload: event });
    const barrier = await h.publish(me, 'esim.suspended', { object: esim('suspended'), previous_state: 'active' });
    await eventually(async () => (await listIds(me)).data.some((e) => e.id === barrier.id));
    await eventually(async () => (await listIds(me)).data.length === 2);
    const page = await listIds(me);
    expect(page.data.map((e) => e.id).sort()).toEqual([event.id, barrier.id].sort());
    const { account_id: _hidden, ...envelope } = event;
    expect(page.data.find((e) => e.id === event.id)).toEqual(envelope);
  });

  it('lists events in the order of their time (milliseconds), whatever their ids say, across pages', async () => {
    const me = caller(newAccount(), 'test');
    const second = new Date('2026-11-22T10:15:30.000Z').getTime();
    // Two instances emitting in one second: ids (and created_at) do not tell which came first.
    const make = (ms: number, id: string) => ({
      ...buildEvent({
        type: 'esim.activated',
        environment: 'test',
        accountId: me.accountId,
        data: { object: esim('active'), previous_state: 'installed' },
        now: new Date(second + ms),
      }),
      id,
    });
    const early = make(100, 'evt_zzzzzzzzzzzzzzzzzzzzzzzzzz');
    const middle = make(400, 'evt_00000000000000000000000000');
    const late = make(900, 'evt_mmmmmmmmmmmmmmmmmmmmmmmmmm');
    for (const event of [late, early, middle]) await h.bus.publish({ id: event.id, subject: eventSubject('test', event.type), payload: event });
    await eventually(async () => (await listIds(me)).data.length === 3);
    expect((await listIds(me)).data.map((e) => e.id)).toEqual([late.id, middle.id, early.id]);
    const first = await listIds(me, '?limit=1');
    const next = await listIds(me, `?limit=2&cursor=${encodeURIComponent(String(first.next_cursor))}`);
    expect([...first.data, ...next.data].map((e) => e.id)).toEqual([late.id, middle.id, early.id]);
  });

  it('dead-letters a message that can never be stored and keeps consuming', async () => {
    const seen: string[] = [];
    const inspector = await h.bus.subscribe({ durable: 'inspector', filterSubjects: ['dead.>'] }, (msg) => {
      seen.push(msg.id);
      return Promise.resolve();
    });
    try {
      await h.bus.publish({ id: 'garbage-1', subject: 'events.test.esim.released', payload: { hello: 'world' } });
      const me = caller(newAccount(), 'test');
      const after = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
      await eventually(() => seen.includes('garbage-1'), 15_000, 'the dead letter');
      await eventually(async () => (await listIds(me)).data.some((e) => e.id === after.id));
    } finally {
      await inspector.stop();
    }
  });

  it('lists the caller account and environment only, newest first then by id, with cursor paging', async () => {
    const account = newAccount();
    const me = caller(account, 'test');
    const base = Date.now() - 60_000;
    const published = [];
    // Two events share each second, so the id breaks the tie.
    for (let i = 0; i < 6; i += 1) {
      published.push(
        await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' }, new Date(base + Math.floor(i / 2) * 1000 + i)),
      );
    }
    await h.publish(caller(account, 'live'), 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    const strangers = caller(newAccount(), 'test');
    await h.publish(strangers, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(async () => (await listIds(me)).data.length === 6);
    await eventually(async () => (await listIds(strangers)).data.length === 1);

    const expected = [...published].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).map((e) => e.id);
    const seen: string[] = [];
    let page = await listIds(me, '?limit=4');
    expect(page.has_more).toBe(true);
    seen.push(...page.data.map((e) => e.id));
    page = await listIds(me, `?limit=4&cursor=${encodeURIComponent(page.next_cursor!)}`);
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    seen.push(...page.data.map((e) => e.id));
    expect(seen).toEqual(expected);
  });

  it('refuses a bad limit or a foreign, altered or malformed cursor with invalid_parameter', async () => {
    const me = caller(newAccount(), 'test');
    for (let i = 0; i < 2; i += 1) await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(async () => (await listIds(me)).data.length === 2);
    const { next_cursor: cursor } = await listIds(me, '?limit=1');
    const check = async (who: ReturnType<typeof caller>, query: string, param: string) => {
      const res = await h.get(who, `/v1/events${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    };
    await check(caller(me.accountId, 'live'), `?cursor=${encodeURIComponent(cursor!)}`, 'cursor');
    await check(caller(newAccount(), 'test'), `?cursor=${encodeURIComponent(cursor!)}`, 'cursor');
    await check(me, `?cursor=${encodeURIComponent(`A${cursor!.slice(1)}`)}`, 'cursor');
    await check(me, '?cursor=nonsense', 'cursor');
    await check(me, '?limit=0', 'limit');
    await check(me, '?limit=abc', 'limit');
    await check(me, '?limit=101', 'limit');
    await check(me, '?type=esim.released', 'type');
  });
});
