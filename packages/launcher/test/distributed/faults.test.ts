import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, QUICK_RECOVERY_ENV, retryingClient, subscribeReceiver, until, type Answer } from './support.ts';

/**
 * The distributed form under kill -9: the gateway, inventory and notifications are each killed
 * once in the middle of a load of orders, usage and state changes, and started again, while
 * clients retry every call with its own Idempotency-Key until it gets a final answer. Nothing
 * may be done twice, no event may be lost, every delivery must verify, and every error answer
 * must be the spec's error object.
 */
describe('faults: kill -9 mid-load', () => {
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let testKey = '';

  beforeAll(async () => {
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      // The receiver listens on 127.0.0.1.
      env: { ...QUICK_RECOVERY_ENV, WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    testKey = (await createAccount(stack.knex)).test.secret;
    receiver = await startReceiver();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  test('no double order, no lost event, every delivery verified, every error the error object', async () => {
    const client = retryingClient(stack.gatewayUrls, testKey);
    await subscribeReceiver(client, receiver);

    const WORKERS = 6;
    const ORDERS_PER_WORKER = 25;
    const total = WORKERS * ORDERS_PER_WORKER;
    let done = 0;
    const orderIds = new Map<string, string>();
    const failures: Answer[] = [];

    const worker = async (w: number) => {
      for (let i = 0; i < ORDERS_PER_WORKER; i += 1) {
        const key = `order-${w}-${i}-${randomBytes(4).toString('hex')}`;
        const order = await client.call('POST', '/v1/esim', key, { bundle: 'esim_5GB_30D_EU', quantity: 1 + (i % 2) });
        if (order.status !== 201) {
          failures.push(order);
          continue;
        }
        orderIds.set(key, String(order.body.id));
        const esim = (order.body.esims as { id: string }[])[0]?.id ?? '';
        // Some usage (activates the eSIM, crosses 50%) and a state change on every third order.
        if (i % 3 === 0) {
          const usage = await client.call('POST', '/v1/test/usage', `use-${key}`, { esim, bytes: 3_000_000_000 });
          if (usage.status !== 200) failures.push(usage);
          const suspend = await client.call('PATCH', `/v1/esim/${esim}`, `sus-${key}`, { state: 'suspended' });
          if (suspend.status !== 200) failures.push(suspend);
        }
        done += 1;
      }
    };

    const chaos = async () => {
      for (const [service, at] of [
        ['gateway', 0.2],
        ['inventory', 0.45],
        ['notifications', 0.7],
      ] as const) {
        await until(`${at * 100}% of the load`, () => done >= total * at, 240_000);
        await stack.supervisor.kill(service);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await stack.supervisor.restart(service);
      }
    };

    await Promise.all([...Array.from({ length: WORKERS }, (_, w) => worker(w)), chaos()]);

    // The kills were felt (calls failed and were retried), and every call still ended in success.
    expect(client.networkFailures() + client.errors.length).toBeGreaterThan(0);
    expect(failures.map((f) => `${f.status} ${JSON.stringify(f.body)}`)).toEqual([]);

    // 0 doubles: one order per Idempotency-Key, and no order nobody asked for.
    expect(new Set(orderIds.values()).size).toBe(total);
    const [orders] = await stack.knex('inventory.orders').count<{ count: string }[]>('* as count');
    expect(Number(orders?.count)).toBe(total);
    const usageRows = await stack.knex('inventory.esims').where('data_used_bytes', '>', 0).select('data_used_bytes');
    for (const row of usageRows as { data_used_bytes: string }[]) expect(Number(row.data_used_bytes)).toBe(3_000_000_000);

    // 0 lost events: every event inventory wrote is stored by notifications and delivered, verified.
    const written = await stack.knex('inventory.outbox').select<{ id: string }[]>('id');
    expect(written.length).toBeGreaterThan(total);
    await until(
      'every event stored and delivered',
      async () => {
        const stored = new Set((await stack.knex('notifications.events').select<{ id: string }[]>('id')).map((row) => row.id));
        return written.every((row) => stored.has(row.id) && receiver.delivered.has(row.id));
      },
      120_000,
    );
    expect(receiver.rejected).toEqual([]);

    // 0 bodies without the error object: every error answer met on the way was one.
    for (const answer of client.errors) {
      expect(typeof answer.body.error?.code, `${answer.status} ${JSON.stringify(answer.body)}`).toBe('string');
      expect(answer.body.error?.link).toMatch(/\/v1\/errors\//);
    }
  });
});
