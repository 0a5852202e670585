import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { HeldReceiver } from './support/held-receiver.ts';

/**
 * How the delivery worker shares its attempts: at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT under
 * way to one endpoint and WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT for one account and environment, over
 * every instance; and claims that go round the tenants, so one with a deep backlog gets its turn,
 * not the queue.
 */
let h: Harness;
let receiver: HeldReceiver;
beforeAll(async () => {
  receiver = await HeldReceiver.start();
  // Attempts held by the receiver stay under way: the answer window must outlast the test.
  h = await Harness.create({ WEBHOOK_TIMEOUT_MS: '30000', DELIVERY_LEASE_MS: '60000' });
});
afterEach(async () => {
  for (const instance of [...h.instances]) await h.stop(instance);
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

describe('in-flight caps', () => {
  it('an endpoint has at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT attempts under way, over two instances; its sibling has its own', async () => {
    const settings = { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2' };
    await h.start(settings);
    await h.start(settings);
    const me = caller(newAccount(), 'test');
    await h.endpoint(me, receiver.url('/capped-1'));
    await h.endpoint(me, receiver.url('/capped-2'));
    for (let i = 0; i < 6; i += 1) await h.publish(me, 'esim.released', released());
    await eventually(() => receiver.now('/capped-1') === 2 && receiver.now('/capped-2') === 2, 10_000, 'two attempts under way to each');
    // Time for many claims by both instances (each polls every 20 ms): none takes a third.
    await sleep(500);
    expect(receiver.mostAtOnce('/capped-1')).toBe(2);
    expect(receiver.mostAtOnce('/capped-2')).toBe(2);
    expect(await pending(me)).toBe(12);
    receiver.open('/capped-1');
    receiver.open('/capped-2');
    await eventually(async () => (await pending(me)) === 0, 10_000, 'every delivery');
    expect(receiver.hits('/capped-1')).toHaveLength(6);
    expect(receiver.hits('/capped-2')).toHaveLength(6);
    expect(receiver.mostAtOnce('/capped-1')).toBe(2);
  });

  it('an account and environment has at most WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT under way, and another account is delivered to meanwhile', async () => {
    await h.start({ WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: '3' });
    const busy = caller(newAccount(), 'test');
    const paths = ['/acct-1', '/acct-2', '/acct-3'];
    for (const path of paths) await h.endpoint(busy, receiver.url(path));
    for (let i = 0; i < 4; i += 1) await h.publish(busy, 'esim.released', released());
    const underWay = () => paths.reduce((sum, path) => sum + receiver.now(path), 0);
    await eventually(() => underWay() === 3, 10_000, 'three attempts under way');
    const other = caller(newAccount(), 'test');
    await h.endpoint(other, receiver.url('/acct-other'));
    receiver.open('/acct-other');
    const event = await h.publish(other, 'esim.released', released());
    await eventually(() => receiver.hits('/acct-other').some((hit) => hit.id === event.id), 10_000, "the other account's webhook");
    await sleep(300);
    expect(underWay()).toBe(3);
    expect(await pending(busy)).toBe(12);
    for (const path of paths) receiver.open(path);
    await eventually(async () => (await pending(busy)) === 0, 10_000, 'every delivery');
  });
});

describe('claims in turn', () => {
  it('goes round the accounts: one with a deep backlog gets a turn, not the queue', async () => {
    // One attempt at a time, so the order of the claims is the order of arrival.
    await h.start({ DELIVERY_CONCURRENCY: '1' });
    const gate = caller(newAccount(), 'test');
    await h.endpoint(gate, receiver.url('/gate'));
    await h.publish(gate, 'esim.released', released());
    await eventually(() => receiver.now('/gate') === 1, 10_000, 'the gate held');

    // While the only slot is held, A queues twelve deliveries, then B and C three each.
    const tenants = { a: caller(newAccount(), 'test'), b: caller(newAccount(), 'test'), c: caller(newAccount(), 'test') };
    for (const [name, who] of Object.entries(tenants)) {
      await h.endpoint(who, receiver.url(`/turn-${name}`));
      receiver.open(`/turn-${name}`);
    }
    for (const [name, count] of [
      ['a', 12],
      ['b', 3],
      ['c', 3],
    ] as const) {
      for (let i = 0; i < count; i += 1) await h.publish(tenants[name], 'esim.released', released());
      await eventually(async () => (await pending(tenants[name])) === count, 10_000, `${name}'s deliveries queued`);
    }

    receiver.open('/gate');
    const order = () => receiver.arrivals.filter((arrival) => arrival.path.startsWith('/turn-')).map((arrival) => arrival.path.slice('/turn-'.length));
    await eventually(() => order().length === 18, 10_000, 'every delivery');
    // Oldest first would send A's twelve before anyone else's; in turn, each round serves each.
    expect(order().slice(0, 9)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
    expect(order().slice(9)).toEqual(Array(9).fill('a'));
  });
});
