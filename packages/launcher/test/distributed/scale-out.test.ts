import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, retryingClient, subscribeReceiver, until } from './support.ts';

/**
 * Two instances of every service (two gateways, catalogues, inventories, simulators and
 * notifications) on one PostgreSQL and one NATS, load spread over both gateways; then one
 * instance of each stopped with SIGTERM under load.
 */
describe('scale-out: two of everything', () => {
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let account: Awaited<ReturnType<typeof createAccount>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      instances: { gateway: 2, catalogue: 2, inventory: 2, 'sandbox-simulator': 2, notifications: 2 },
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        // Load for as long as a stop and a drain take: not cut short by the day's quota of test eSIMs.
        TEST_ESIMS_PER_DAY: '1000000',
        DELIVERY_POLL_INTERVAL_MS: '100',
        SWEEPER_INTERVAL_MS: '300',
        OUTBOX_POLL_INTERVAL_MS: '200',
        DRAIN_TIMEOUT_MS: '5000',
        // The receiver listens on 127.0.0.1.
        WEBHOOK_ALLOW_PRIVATE: '1',
      },
    });
    account = await createAccount(stack.knex);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const admin = (path: string, method: string, body?: unknown) =>
    fetch(`${stack.adminUrls[0]}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const count = async (sql: string, bindings: Knex.RawBinding[] = []) =>
    Number((await stack.knex.raw<{ rows: { n: string }[] }>(sql, bindings)).rows[0]?.n ?? 0);

  test('load over both gateways: every order once, every event stored once and delivered once, the sweeper moves each eSIM once', async () => {
    const client = retryingClient(stack.gatewayUrls, account.test.secret);
    await subscribeReceiver(client, receiver);

    const orders = new Map<string, string>();
    const worker = async (w: number) => {
      for (let i = 0; i < 20; i += 1) {
        const key = `scale-${w}-${i}-${randomBytes(4).toString('hex')}`;
        const order = await client.call('POST', '/v1/esim', key, { bundle: 'esim_5GB_30D_EU', quantity: 1 + (i % 2) });
        expect(order.status).toBe(201);
        orders.set(key, String(order.body.id));
        const esim = (order.body.esims as { id: string }[])[0]?.id ?? '';
        if (i % 4 === 0) {
          const used = await client.call('POST', '/v1/test/usage', `use-${key}`, { esim, bytes: 2_600_000_000 });
          expect(used.status, JSON.stringify(used.body)).toBe(200);
        }
        if (i % 4 === 1) {
          const installed = await client.call('PATCH', `/v1/esim/${esim}`, `inst-${key}`, { state: 'installed' });
          expect(installed.status, JSON.stringify(installed.body)).toBe(200);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));

    expect(new Set(orders.values()).size).toBe(120);
    expect(await count('select count(*) as n from inventory.orders')).toBe(120);

    // Some eSIMs reach the end of their validity: the two sweepers between them expire each once.
    const doomed = ((await stack.knex('inventory.esims').select('id').whereNot('state', 'expired').limit(25)) as { id: string }[]).map((row) => row.id);
    await stack.knex('inventory.esims').whereIn('id', doomed).update({ expires_at: 1 });
    await until(
      'the sweepers',
      async () => (await count(`select count(*) as n from inventory.esims where id = any(?) and state = 'expired'`, [doomed])) === doomed.length,
    );

    // Every event inventory wrote is stored once by the two notifications and delivered once.
    const written = (await stack.knex('inventory.outbox').select<{ id: string; subject: string }[]>('id', 'subject')).map((row) => row.id);
    await until('every event delivered', () => written.every((id) => receiver.delivered.has(id)), 120_000);
    expect(await count('select count(*) - count(distinct id) as n from notifications.events')).toBe(0);
    const expiredEvents = await count(
      `select count(*) as n from inventory.outbox where payload->>'type' = 'esim.expired' and payload->'data'->'object'->>'id' = any(?)`,
      [doomed],
    );
    expect(expiredEvents).toBe(doomed.length);
    // No attempt made twice by the two delivery workers.
    expect(await count('select count(*) as n from notifications.attempts where attempt > 1')).toBe(0);
    expect(receiver.attempts()).toBe(receiver.delivered.size);
    expect(receiver.rejected).toEqual([]);
  });

  test('a balance for one order, 30 orders at once over both gateways and both inventories: one 201, 29 × 402, never negative', async () => {
    const payer = await createAccount(stack.knex);
    const client = retryingClient(stack.gatewayUrls, payer.test.secret);
    const probe = await client.call('POST', '/v1/esim', `probe-${randomBytes(4).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    const price = Number(probe.body.price_cents);
    // The sandbox's simulated balance takes the path a live balance does: a lock on the balance's row.
    const set = await client.call('POST', '/v1/test/balance', `balance-${randomBytes(4).toString('hex')}`, { available_cents: price });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`${stack.gatewayUrls[i % 2]}/v1/esim`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${payer.test.secret}`,
            'content-type': 'application/json',
            'idempotency-key': `pay-${i}-${randomBytes(4).toString('hex')}`,
          },
          body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 }),
        }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(29);
    const balance = await client.call('GET', '/v1/balance', undefined);
    expect(balance.body).toMatchObject({ available_cents: 0, pending_cents: 0, simulated: true });
    const transactions = await client.call('GET', '/v1/balance_transactions', undefined);
    expect((transactions.body.data as { type: string }[]).map((t) => t.type)).toEqual(['order', 'adjustment']);
  });

  test('the rate limit is shared: a key gets its budget in total over both gateways, not per gateway', async () => {
    const limited = await createAccount(stack.knex);
    expect((await admin(`/admin/accounts/${limited.account.id}`, 'PATCH', { rate_limit_per_minute: 120 })).status).toBe(200);
    // 150 at each gateway, more than the whole budget: per gateway, 240 would pass. Each gateway
    // spends every token it leases (it has more requests than tokens), so exactly the budget passes;
    // with fewer requests than the budget at a gateway, one served first could end holding a few
    // leased tokens it has no request for (the leased counter's documented early refusal).
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => fetch(`${stack.gatewayUrls[i % 2]}/v1/version`, { headers: { authorization: `Bearer ${limited.test.secret}` } })),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(120);
    expect(answers.filter((res) => res.status === 429)).toHaveLength(180);
  });

  test('a key revoked through one gateway is refused by both within a second', async () => {
    const revoked = await createAccount(stack.knex);
    for (const url of stack.gatewayUrls)
      expect((await fetch(`${url}/v1/version`, { headers: { authorization: `Bearer ${revoked.test.secret}` } })).status).toBe(200);
    expect((await admin(`/admin/keys/${revoked.test.key.id}/revoke`, 'POST')).status).toBe(200);
    const started = Date.now();
    await until(
      'both gateways refuse',
      async () => {
        const statuses = await Promise.all(
          stack.gatewayUrls.map(async (url) => (await fetch(`${url}/v1/version`, { headers: { authorization: `Bearer ${revoked.test.secret}` } })).status),
        );
        return statuses.every((status) => status === 401);
      },
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  test('one instance of each stopped with SIGTERM under load: requests finish or move to the other, nothing is lost', async () => {
    const client = retryingClient(stack.gatewayUrls, account.test.secret);
    let stop = false;
    let placed = 0;
    const worker = async () => {
      while (!stop) {
        const order = await client.call('POST', '/v1/esim', `drain-${randomBytes(6).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 1 });
        expect(order.status).toBe(201);
        placed += 1;
      }
    };
    const before = await count('select count(*) as n from inventory.orders');
    const workers = Array.from({ length: 4 }, () => worker());
    await until('load under way', () => placed >= 10);
    // The second of each, gateway first; each must be gone well inside Kubernetes' 30 s grace.
    const stopped = await Promise.all(
      ['gateway', 'catalogue', 'inventory', 'sandbox-simulator', 'notifications'].map(async (service, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 200));
        const name = stack.names[service]?.[1] ?? '';
        const sent = Date.now();
        const code = await stack.supervisor.stop(name, 30_000);
        return { name, code, ms: Date.now() - sent };
      }),
    );
    await until('more load on the survivors', () => placed >= 40, 60_000);
    stop = true;
    await Promise.all(workers);
    for (const { name, code, ms } of stopped) {
      expect(code, name).toBe(0);
      expect(ms, name).toBeLessThan(10_000);
    }
    // Every order the clients were told about exists once; every event of them gets delivered.
    expect(await count('select count(*) as n from inventory.orders')).toBe(before + placed);
    // The events of the account whose endpoint the receiver is (other tests' accounts have none).
    const written = (await stack.knex('inventory.outbox').whereRaw("payload->>'account_id' = ?", [account.account.id]).select<{ id: string }[]>('id')).map(
      (row) => row.id,
    );
    await until('every event delivered after the stops', () => written.every((id) => receiver.delivered.has(id)), 120_000);
    for (const answer of client.errors) expect(typeof answer.body.error?.code, JSON.stringify(answer.body)).toBe('string');
    // What an instance accepted it finishes before closing its pool and bus (record 0026): a stop
    // may move a request to the other instance, never answer it with a server error.
    expect(client.errors.filter((answer) => answer.status >= 500).map((answer) => answer.body)).toEqual([]);
  });
});
