import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { createBus } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startNatsCluster, type NatsCluster, type NatsNode } from '../support/nats-cluster.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, QUICK_RECOVERY_ENV, retryingClient, subscribeReceiver, until, type Answer } from './support.ts';

const SERVICES = ['catalogue', 'inventory', 'notifications', 'sandbox-simulator', 'gateway'];

/**
 * NATS as the cluster it is in production: three JetStream servers, the streams at three
 * replicas. In the middle of a load of orders a server is killed (SIGKILL): first the one most
 * of the services are connected to (it comes back and catches up), then the one leading the
 * event stream (it stays down). The services must carry on by themselves (reconnect to the
 * others), every event must reach the webhook receiver once, and no order may be made twice.
 */
describe('a three-node NATS cluster loses a node under load', () => {
  let cluster: NatsCluster;
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let testKey = '';

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    stack = await startDistributedStack({
      databaseUrl: distributedBackends().databaseUrl,
      natsUrl: cluster.url,
      stdio: 'ignore',
      // The receiver listens on 127.0.0.1.
      env: { ...QUICK_RECOVERY_ENV, NATS_STREAM_REPLICAS: '3', WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    testKey = (await createAccount(stack.knex)).test.secret;
    receiver = await startReceiver();
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
    await cluster?.close();
  });

  test('the streams keep three replicas, and a restart without NATS_STREAM_REPLICAS leaves them so', async () => {
    const stream = String(stack.env.NATS_STREAM);
    const [first] = cluster.nodes as [NatsNode];
    for (const name of [stream, `${stream}_DEAD`]) {
      const view = await cluster.stream(first, name);
      expect(view?.replicas, name).toBe(3);
      // Held by every node: the node asked, and the leader and followers it names.
      expect(new Set([first.name, view?.leader, ...(view?.peers ?? [])]), name).toEqual(new Set(['n1', 'n2', 'n3']));
    }
    // A process started without the setting (an operator raised the count by hand) keeps it.
    const bus = await createBus({ natsUrl: cluster.url, streamName: stream, subjectPrefix: String(stack.env.NATS_SUBJECT_PREFIX) });
    await bus.close();
    expect((await cluster.stream(first, stream))?.replicas).toBe(3);
  });

  test('no order twice, every event delivered once, the services reconnect by themselves', async () => {
    const client = retryingClient(stack.gatewayUrls, testKey);
    await subscribeReceiver(client, receiver);
    const pids = SERVICES.map((name) => stack.supervisor.pid(name));

    // Orders flow from before the first kill until well after the last one.
    const WORKERS = 4;
    const ORDERS_AFTER_CHAOS = 10;
    let done = 0;
    let chaosOver = false;
    const orderIds = new Map<string, string>();
    const failures: Answer[] = [];

    const worker = async (w: number) => {
      for (let i = 0, after = 0; !chaosOver || after < ORDERS_AFTER_CHAOS; i += 1) {
        if (chaosOver) after += 1;
        const key = `order-${w}-${i}-${randomBytes(4).toString('hex')}`;
        const order = await client.call('POST', '/v1/esim', key, { bundle: 'esim_5GB_30D_EU', quantity: 1 + (i % 2) });
        if (order.status !== 201) {
          failures.push(order);
          continue;
        }
        orderIds.set(key, String(order.body.id));
        if (i % 4 === 0) {
          const esim = (order.body.esims as { id: string }[])[0]?.id ?? '';
          const usage = await client.call('POST', '/v1/test/usage', `use-${key}`, { esim, bytes: 3_000_000_000 });
          if (usage.status !== 200) failures.push(usage);
        }
        done += 1;
      }
    };

    // First the node serving the most of the services' connections goes, and comes back once
    // the load has moved on; then the node leading the event stream goes for good.
    const stream = String(stack.env.NATS_STREAM);
    let busiest: NatsNode | undefined;
    let busiestServed: string[] = [];
    let leader: NatsNode | undefined;
    const chaos = async () => {
      try {
        await until('20 orders', () => done >= 20, 240_000);
        const served = await Promise.all(
          cluster.nodes.map(async (node) => ({ node, names: (await cluster.connectionNames(node)).filter((name) => SERVICES.includes(name)) })),
        );
        ({ node: busiest, names: busiestServed } = served.reduce((best, next) => (next.names.length > best.names.length ? next : best)));
        await busiest.kill();
        const atKill = done;
        await until('20 orders more', () => done >= atKill + 20, 240_000);
        await busiest.restart();
        const views = await Promise.all(cluster.nodes.map((node) => cluster.stream(node, stream)));
        leader = cluster.nodes.find((node) => views.some((view) => view?.leader === node.name));
        await leader?.kill();
      } finally {
        chaosOver = true;
      }
    };

    await Promise.all([...Array.from({ length: WORKERS }, (_, w) => worker(w)), chaos()]);
    expect(busiestServed.length, 'the first node killed served some of the services').toBeGreaterThan(0);
    expect(leader, 'the stream had a leader when the second node was killed').toBeDefined();
    console.log(
      `killed ${busiest?.name} (serving ${busiestServed.join(', ')}), then the stream leader ${leader?.name}; ${orderIds.size} orders, ` +
        `${client.networkFailures()} network failures, ${client.errors.length} error answers retried`,
    );
    expect(failures.map((f) => `${f.status} ${JSON.stringify(f.body)}`)).toEqual([]);

    // One of the nodes left leads the stream now.
    const survivors = cluster.nodes.filter((node) => node !== leader);
    await until(
      'a new stream leader among the nodes left',
      async () => {
        const view = await cluster.stream(survivors[0] as NatsNode, stream);
        return survivors.some((node) => node.name === view?.leader);
      },
      30_000,
    );

    // Every service is connected again, to the nodes left, without having been restarted.
    await until(
      'every service connected to a surviving node',
      async () => {
        const names = new Set((await Promise.all(survivors.map((node) => cluster.connectionNames(node)))).flat());
        return SERVICES.every((name) => names.has(name));
      },
      30_000,
    );
    expect(
      SERVICES.map((name) => stack.supervisor.pid(name)),
      'the same processes as before the kill',
    ).toEqual(pids);

    // 0 doubles: one order per Idempotency-Key, and no order nobody asked for.
    expect(new Set(orderIds.values()).size).toBe(orderIds.size);
    const [orders] = await stack.knex('inventory.orders').count<{ count: string }[]>('* as count');
    expect(Number(orders?.count)).toBe(orderIds.size);

    // 0 lost: every event inventory wrote is stored and delivered, verified, and delivered once.
    const written = await stack.knex('inventory.outbox').select<{ id: string }[]>('id');
    expect(written.length).toBeGreaterThan(orderIds.size);
    await until('every event delivered', () => written.every((row) => receiver.delivered.has(row.id)), 120_000);
    expect(receiver.rejected).toEqual([]);
    expect(receiver.attempts(), 'deliveries beyond one per event').toBe(receiver.delivered.size);
  });
});
