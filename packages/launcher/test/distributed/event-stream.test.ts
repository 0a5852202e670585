import type { Order } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { openStream, type SseConnection } from '../support/sse.ts';
import { adminCall, distributedBackends } from './support.ts';

/**
 * The event stream with two gateways and two notifications, each its own process: gateway i
 * calls notifications i, so a stream opened through each gateway is served by a different
 * instance, while the shared durable consumer hands each event to ONE of them. Both streams
 * seeing every event means each event crossed to the instance that did not store it. The safety
 * poll is set to a minute, so only the bus notices can carry them in time. Then a notifications
 * instance is stopped with SIGTERM under an open stream: the stream ends at once, the process
 * exits well inside its drain time, and a reconnect through the other gateway with
 * Last-Event-ID loses nothing; a gateway stopped under an open stream ends it and exits too.
 */
describe('the event stream across instances', () => {
  let stack: DistributedStack;
  let key = '';
  const open: SseConnection[] = [];

  const stream = async (gateway: number, headers: Record<string, string> = {}) => {
    const connection = await openStream(`${stack.gatewayUrls[gateway] ?? ''}/v1/events/stream?types=esim.*`, { authorization: `Bearer ${key}`, ...headers });
    expect(connection.status).toBe(200);
    open.push(connection);
    return connection;
  };
  const buy = async (quantity: number) => {
    const response = await fetch(`${stack.gatewayUrls[0] ?? ''}/v1/esim`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `buy-${Math.random().toString(36).slice(2)}` },
      body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as Order;
  };

  beforeAll(async () => {
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      instances: { gateway: 2, notifications: 2 },
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        OUTBOX_POLL_INTERVAL_MS: '200',
        STREAM_POLL_INTERVAL_MS: '60000',
        STREAM_RETRY_MS: '200',
        DRAIN_TIMEOUT_MS: '8000',
      },
    });
    key = (await createAccount(stack.knex)).test.secret;
  }, 240_000);
  afterAll(async () => {
    for (const connection of open) connection.close();
    await stack?.close();
  });

  test('a stream served by one instance sees the events the other instance consumed, at once', async () => {
    const one = await stream(0);
    const two = await stream(1);
    const orders: Order[] = [];
    for (let i = 0; i < 8; i += 1) orders.push(await buy(2));
    const total = orders.reduce((sum, order) => sum + order.esims.length, 0);
    const started = Date.now();
    await Promise.all([one.waitFor(total, 20_000), two.waitFor(total, 20_000)]);
    // Well inside the one-minute safety poll: the notices carried them.
    expect(Date.now() - started).toBeLessThan(20_000);
    const ids = (connection: SseConnection) => connection.messages.map((m) => m.id);
    // Both in the stream's own order.
    expect(ids(one)).toEqual(ids(two));
    expect(new Set(ids(one)).size).toBe(total);
  });

  test('a key revoked, rotated or restricted through one gateway closes its streams on the other within a second', async () => {
    const admin = (method: string, path: string, body: unknown = {}) => adminCall<{ id: string; secret?: string }>(stack, method, path, body);
    const account = await createAccount(stack.knex);
    const closedWithinASecond = async (secret: string, change: () => Promise<unknown>) => {
      const connection = await openStream(`${stack.gatewayUrls[1] ?? ''}/v1/events/stream`, { authorization: `Bearer ${secret}` });
      expect(connection.status).toBe(200);
      open.push(connection);
      // The stream is open end to end once it has said how long to wait before reconnecting.
      const opened = Date.now();
      while (!connection.raw.includes('retry:') && Date.now() - opened < 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      await change();
      await connection.ended;
      expect(Date.now() - started).toBeLessThan(1_000);
    };
    const rotate = () => admin('POST', `/admin/accounts/${account.account.id}/keys`, { environment: 'test', scopes: ['events:read'] });

    // Restricted through gateway 0's admin API, while the stream runs through gateway 1.
    await closedWithinASecond(account.test.secret, () => admin('PATCH', `/admin/keys/${account.test.key.id}`, { scopes: ['esim:read'] }));
    // Rotated: the replaced key's stream closes.
    const rotated = await rotate();
    await closedWithinASecond(rotated.secret ?? '', rotate);
    // Revoked.
    const revocable = await rotate();
    await closedWithinASecond(revocable.secret ?? '', () => admin('POST', `/admin/keys/${revocable.id}/revoke`));
  });

  test('SIGTERM on the serving instance ends its streams at once; a resume elsewhere loses nothing', async () => {
    const served = await stream(0);
    await buy(1);
    const [seen] = await served.waitFor(1);
    const started = Date.now();
    const stopping = stack.supervisor.stop(stack.names.notifications?.[0] ?? '');
    await served.ended;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await stopping).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);

    const meanwhile = await buy(3);
    const resumed = await stream(1, { 'last-event-id': seen?.id ?? '' });
    // Exactly what was made after the last event seen: stored by the remaining instance, in order.
    const caughtUp = await resumed.waitFor(3, 20_000);
    const esimOf = (data: string) => (JSON.parse(data) as { data: { object: { id: string } } }).data.object.id;
    expect(caughtUp.map((message) => esimOf(message.data)).sort()).toEqual(meanwhile.esims.map((esim) => esim.id).sort());
  });

  test('SIGTERM on the gateway of an open stream ends it at once and the gateway exits in time', async () => {
    const served = await stream(1);
    await buy(1);
    await served.waitFor(1);
    const started = Date.now();
    const stopping = stack.supervisor.stop(stack.names.gateway?.[1] ?? '');
    await served.ended;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await stopping).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
