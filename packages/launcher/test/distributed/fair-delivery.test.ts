import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, retryingClient, subscribeReceiver, until } from './support.ts';

/** A host that accepts every connection and never sends a byte; closing it drops what it holds. */
async function startSilentHost(): Promise<{ port: number; accepted: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The issue "one tenant stalls every tenant's webhooks" in the distributed form, with two
 * notifications instances sharing the deliveries: account A points its 16 endpoints at a host
 * that accepts and never answers and makes three orders of ten eSIMs (480 deliveries); account
 * B's next webhook still arrives within 5 s of its order. The delivery settings are the
 * production ones.
 */
describe('fair delivery, two notifications instances', () => {
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let silent: Awaited<ReturnType<typeof startSilentHost>>;

  beforeAll(async () => {
    [receiver, silent] = await Promise.all([startReceiver(), startSilentHost()]);
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      instances: { notifications: 2 },
      // The receivers listen on 127.0.0.1.
      env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: '1', OUTBOX_POLL_INTERVAL_MS: '200' },
    });
  }, 240_000);
  afterAll(async () => {
    // A's attempts end at once, so the instances stop without waiting out their 15 s.
    await silent?.close();
    await stack?.close();
    await receiver?.close();
  });

  test("A's 480 deliveries to a host that never answers do not hold up B's webhook", async () => {
    const a = await createAccount(stack.knex);
    const b = await createAccount(stack.knex);
    const clientA = retryingClient(stack.gatewayUrls, a.test.secret);
    for (let i = 0; i < 16; i += 1) {
      const created = await clientA.call('POST', '/v1/webhooks', `hook-${randomBytes(6).toString('hex')}`, {
        url: `http://127.0.0.1:${silent.port}/hook-${i}`,
        enabled_events: ['esim.released'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const clientB = retryingClient(stack.gatewayUrls, b.test.secret);
    await subscribeReceiver(clientB, receiver);

    for (let i = 0; i < 3; i += 1) {
      const order = await clientA.call('POST', '/v1/esim', `order-a-${i}-${randomBytes(6).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 10 });
      expect(order.status, JSON.stringify(order.body)).toBe(201);
    }
    const count = async (sql: string) => Number((await stack.knex.raw<{ rows: { n: string }[] }>(sql, [a.account.id])).rows[0]?.n ?? 0);
    const pendingOfA = () =>
      count(
        `select count(*) as n from notifications.deliveries d join notifications.endpoints e on e.id = d.endpoint_id where e.account_id = ? and d.status = 'pending'`,
      );
    const underWayForA = () =>
      count(`select count(*) as n from notifications.deliveries d join notifications.endpoints e on e.id = d.endpoint_id
             where e.account_id = ? and d.status = 'pending' and d.claim_token is not null and d.next_attempt_at > now()`);
    await until("A's 480 deliveries queued", async () => (await pendingOfA()) === 480, 60_000);
    await until("A's attempts under way", () => silent.accepted() >= 16, 30_000);

    const ordered = await clientB.call('POST', '/v1/esim', `order-b-${randomBytes(6).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    const answeredAt = performance.now();
    expect(ordered.status, JSON.stringify(ordered.body)).toBe(201);
    const esimId = (ordered.body.esims as { id: string }[])[0]?.id ?? '';
    let mostUnderWay = 0;
    const arrived = () => [...receiver.delivered.values()].some((event) => event.type === 'esim.released' && event.data.object?.id === esimId);
    await until(
      "B's esim.released webhook",
      async () => {
        mostUnderWay = Math.max(mostUnderWay, await underWayForA());
        return arrived();
      },
      30_000,
    );
    expect(performance.now() - answeredAt).toBeLessThan(5_000);
    // Over both instances, A never had more than its share under way, and its backlog was still there.
    expect(mostUnderWay).toBeLessThanOrEqual(16);
    expect(await pendingOfA()).toBeGreaterThan(400);
    expect(receiver.rejected).toEqual([]);
  });
});
