import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { HeldReceiver } from './support/held-receiver.ts';

/**
 * WEBHOOK_MAX_PENDING_PER_ACCOUNT (here 5): past it, an account's events are stored but their
 * deliveries are not queued, and a replay waits for room; the event log keeps every event, and a
 * replay sends what was left out. Another account is not affected.
 */
let h: Harness;
let receiver: HeldReceiver;
beforeAll(async () => {
  receiver = await HeldReceiver.start();
  h = await Harness.create({ WEBHOOK_MAX_PENDING_PER_ACCOUNT: '5', WEBHOOK_TIMEOUT_MS: '30000', DELIVERY_LEASE_MS: '60000', REPLAY_WAIT_MS: '100' });
  await h.start();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const released = () => ({ object: esim('released'), previous_state: null });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function pending(who: Caller): Promise<number> {
  const [row] = await h.db
    .knex('notifications.deliveries as d')
    .join('notifications.endpoints as e', 'e.id', 'd.endpoint_id')
    .where({ 'e.account_id': who.accountId, 'd.status': 'pending' })
    .count<{ n: string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}

describe('the cap of pending deliveries per account and environment', () => {
  it('stores every event but queues no more than the cap; a replay waits for room, then sends what was left out', async () => {
    const full = caller(newAccount(), 'test');
    await h.endpoint(full, receiver.url('/full'));
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push((await h.publish(full, 'esim.released', released())).id);
    const listed = async () => ((await h.get(full, '/v1/events?limit=100')).body.data as { id: string }[]).map((event) => event.id);
    await eventually(async () => (await listed()).length === 8, 10_000, 'the eight events stored');
    expect((await listed()).sort()).toEqual([...ids].sort());
    expect(await pending(full)).toBe(5);
    const queuedIds = (await h.db.knex('notifications.deliveries').whereIn('event_id', ids).pluck('event_id')) as string[];
    expect(new Set(queuedIds).size).toBe(5);

    // Another account's event is queued and delivered meanwhile.
    const other = caller(newAccount(), 'test');
    await h.endpoint(other, receiver.url('/other'));
    receiver.open('/other');
    const theirs = await h.publish(other, 'esim.released', released());
    await eventually(() => receiver.hits('/other').some((hit) => hit.id === theirs.id), 10_000, "the other account's webhook");

    // A replay of the window waits while the account is at its cap...
    const since = Math.floor(Date.now() / 1000) - 3_600;
    const replay = await h.post(full, '/v1/events/replay', { since });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ queued: 8, endpoints: 1 });
    await sleep(500);
    expect(await pending(full)).toBe(5);

    // ... and once the receiver answers, it is queued: every event arrives, those left out too.
    receiver.open('/full');
    await eventually(() => ids.every((id) => receiver.hits('/full').some((hit) => hit.id === id)), 15_000, 'every event delivered');
    await eventually(async () => (await pending(full)) === 0, 10_000, 'nothing pending');
  });
});
