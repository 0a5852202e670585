import type { Esim, Order, TestClock } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { eventually } from '@connectivity/platform/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { startReceiver } from './support/receiver.ts';

const DAY = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * `esim.expiring` (record 0236) through the public gateway to a webhook endpoint subscribed to it alone,
 * on PostgreSQL + NATS when configured, else PGlite + the in-process bus: a test clock's advance past the
 * 3-day mark of an eSIM on it is delivered once, signed, with the eSIM and `days_left`.
 */
describe('esim.expiring by webhook', () => {
  let stack: LocalStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let testKey = '';
  const api = (method: string, path: string, body?: unknown) => stack.call(testKey, method, path, body);

  beforeAll(async () => {
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    testKey = (await createAccount(stack.db.knex)).test.secret;
    receiver = await startReceiver();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  test('an endpoint subscribed to esim.expiring receives it once per mark, and nothing else', async () => {
    const endpoint = await api('POST', '/v1/webhooks', { url: receiver.url, enabled_events: ['esim.expiring'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    receiver.useSecret(endpoint.body.secret as string);

    const start = nowSeconds() + 40 * DAY;
    const clock = (await api('POST', '/v1/test/clocks', { frozen_time: start })).body as unknown as TestClock;
    const order = await api('POST', '/v1/esim', { bundle: 'esim_1GB_7D_US', quantity: 1, test_clock: clock.id });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const esim = (order.body as unknown as Order).esims[0] as Esim;

    const advanced = await api('POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: start + 4 * DAY + 60 });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    await eventually(() => expect(receiver.delivered.size).toBe(1), 15_000, 50);
    const [delivery] = [...receiver.delivered.values()];
    expect(delivery).toMatchObject({ type: 'esim.expiring', data: { days_left: 3, object: { id: esim.id, expires_at: start + 7 * DAY } } });
    expect((delivery as unknown as { created_at: number }).created_at).toBe(start + 4 * DAY);

    expect((await api('POST', `/v1/test/clocks/${clock.id}/advance`, { frozen_time: start + 6 * DAY + 60 })).status).toBe(200);
    await eventually(() => expect(receiver.delivered.size).toBe(2), 15_000, 50);
    expect([...receiver.delivered.values()].map((d) => [d.type, (d.data as { days_left?: number }).days_left])).toEqual([
      ['esim.expiring', 3],
      ['esim.expiring', 1],
    ]);
    expect(receiver.rejected).toEqual([]);
  });
});
