import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../src/domain/retry-policy.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { SilentListener } from './support/held-receiver.ts';
import { Receiver } from './support/receiver.ts';

/**
 * The issue "one tenant stalls every tenant's webhooks", as it was reported: account A points its
 * 16 endpoints at a host that accepts and never answers and makes three orders of ten eSIMs (480
 * deliveries); account B's next webhook must still arrive within 5 s. The delivery settings are
 * the production ones (15 s answer window, the real retry schedule, the default pool and caps).
 */
let h: Harness;
let receiver: Receiver;
let silent: SilentListener;
beforeAll(async () => {
  [receiver, silent] = await Promise.all([Receiver.start(), SilentListener.start()]);
  h = await Harness.create({
    WEBHOOK_TIMEOUT_MS: '15000',
    DELIVERY_LEASE_MS: '60000',
    WEBHOOK_RETRY_SCHEDULE_MS: DEFAULT_RETRY_SCHEDULE_MS.join(','),
    WEBHOOK_RETRY_JITTER: '0.2',
  });
  await h.start();
});
afterAll(async () => {
  // Dropping A's connections first ends its attempts, so the instance stops without waiting 15 s for them.
  await silent?.close();
  await h?.close();
  await receiver?.close();
});

const pendingTo = async (endpointIds: string[]) => {
  const [row] = await h.db
    .knex('notifications.deliveries')
    .whereIn('endpoint_id', endpointIds)
    .andWhere('status', 'pending')
    .count<{ n: string }[]>({ n: '*' });
  return Number(row?.n ?? 0);
};

describe('fair delivery', () => {
  it("a tenant whose 16 endpoints never answer, with 480 deliveries pending, does not hold up another tenant's webhook", async () => {
    const a = caller(newAccount(), 'test');
    const endpoints: string[] = [];
    for (let i = 0; i < 16; i += 1) endpoints.push((await h.endpoint(a, `http://127.0.0.1:${silent.port}/hook-${i}`)).id);
    const b = caller(newAccount(), 'test');
    const hookB = await h.endpoint(b, receiver.url('/b'));
    receiver.secret('/b', hookB.secret);

    // Three orders of ten eSIMs: 30 esim.released events, each to A's 16 endpoints.
    for (let i = 0; i < 30; i += 1) await h.publish(a, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(async () => (await pendingTo(endpoints)) === 480, 30_000, "A's 480 deliveries");
    await eventually(() => silent.accepted >= 16, 10_000, "A's attempts under way");

    const started = Date.now();
    const event = await h.publish(b, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(() => receiver.hits('/b').some((hit) => hit.id === event.id), 20_000, "B's webhook");
    expect(Date.now() - started).toBeLessThan(5_000);
    // A's backlog did not drain meanwhile: B went past it.
    expect(await pendingTo(endpoints)).toBeGreaterThan(400);
    expect(receiver.rejected).toEqual([]);
  });
});
