import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { newId } from '@connectivity/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { InternalCaller } from '@connectivity/contracts';
import { BUS_USERS } from '../../src/bus-users.ts';
import { CALLERS_OF } from '../../src/internal-credentials.ts';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { connectAs, publishRefused, subscribeRefused } from '../support/nats-probe.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, QUICK_RECOVERY_ENV, retryingClient, subscribeReceiver, until } from './support.ts';

/**
 * A foothold inside the deployment, tried against the distributed form as deployed: its own NATS
 * server with a user per service (records 0220, 0221), a database login per service (0224), a
 * token per internal caller (0222). Without credentials the bus gives nothing; a service's
 * credentials publish only its own events, so a forged event never reaches a tenant; a service's
 * login reads only its own schema; a caller's token opens only the routes meant for it.
 */
describe('least privilege between the services', () => {
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let account: Awaited<ReturnType<typeof createAccount>>;
  const connections: NatsConnection[] = [];
  const logins: Knex[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startDistributedStack({
      ...distributedBackends(),
      securedBus: true,
      stdio: 'ignore',
      env: { ...QUICK_RECOVERY_ENV, WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    account = await createAccount(stack.knex);
  }, 180_000);
  afterAll(async () => {
    for (const nc of connections) await nc.close();
    for (const login of logins) await login.destroy();
    await stack?.close();
    await receiver?.close();
  });

  const bus = () => stack.bus ?? { url: '', passwords: {} };
  const natsAs = async (user: string) => {
    const nc = await connectAs(bus().url, { name: user, password: bus().passwords[user] ?? '' });
    connections.push(nc);
    return nc;
  };
  const prefix = () => String(stack.env.NATS_SUBJECT_PREFIX);

  test('an order and its webhook go through: every service does its work with its own credentials', async () => {
    const client = retryingClient(stack.gatewayUrls, account.test.secret);
    await subscribeReceiver(client, receiver);
    const order = await client.call('POST', '/v1/esim', `order-${randomBytes(6).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    expect(order.status).toBe(201);
    await until('the esim.released webhook', () => [...receiver.delivered.values()].some((d) => d.type === 'esim.released'), 60_000);
  });

  test('a NATS client without credentials can neither publish nor subscribe: it is not let in', async () => {
    await expect(connectAs(bus().url)).rejects.toThrow(/Authorization Violation/);
  });

  test("a service's credentials cannot publish another service's events, nor read the events on the bus", async () => {
    const wrong: string[] = [];
    for (const user of BUS_USERS) {
      const nc = await natsAs(user);
      if (user !== 'inventory' && !(await publishRefused(nc, `${prefix()}events.test.esim.activated`))) wrong.push(`${user} published an eSIM event`);
      if (user !== 'gateway' && !(await publishRefused(nc, `${prefix()}events.test.api_key.revoked`))) wrong.push(`${user} published a key event`);
      if (!(await subscribeRefused(nc, `${prefix()}events.>`))) wrong.push(`${user} subscribed to every event`);
    }
    expect(wrong).toEqual([]);
  });

  test('a forged event never reaches the tenant: neither in GET /v1/events nor as a webhook', async () => {
    const client = retryingClient(stack.gatewayUrls, account.test.secret);
    const forged = {
      object: 'event',
      id: newId('event'),
      type: 'esim.activated',
      time: new Date().toISOString(),
      created_at: Math.floor(Date.now() / 1000),
      environment: 'test',
      data: { object: { id: newId('esim'), object: 'esim', state: 'active' } },
      account_id: account.account.id,
    };
    for (const user of BUS_USERS.filter((u) => u !== 'inventory')) {
      expect(await publishRefused(await natsAs(user), `${prefix()}events.test.esim.activated`, JSON.stringify(forged)), user).toBe(true);
    }
    // An order made after the attempts: once its events are delivered, anything before them was too.
    const order = await client.call('POST', '/v1/esim', `order-${randomBytes(6).toString('hex')}`, { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    const esim = (order.body.esims as { id: string }[])[0]?.id;
    await until('the second order delivered', () => [...receiver.delivered.values()].some((d) => d.data.object?.id === esim), 60_000);
    const events = await client.call('GET', '/v1/events?limit=100', undefined);
    const ids = (events.body.data as { id: string }[]).map((event) => event.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain(forged.id);
    expect(receiver.delivered.has(forged.id)).toBe(false);
  });

  test("catalogue's database login cannot read inventory's schema (nor change its own tables); each reads its own", async () => {
    const loginOf = (service: string) => {
      const login = knexFactory({ client: 'pg', connection: stack.databaseUrls[service], pool: { min: 0, max: 1 } });
      logins.push(login);
      return login;
    };
    const catalogue = loginOf('catalogue');
    await expect(catalogue.raw('select count(*) from inventory.orders')).rejects.toMatchObject({ code: '42501' });
    await expect(catalogue.raw('select count(*) from gateway.api_keys')).rejects.toMatchObject({ code: '42501' });
    await expect(catalogue.raw('create table catalogue.spy (id int)')).rejects.toMatchObject({ code: '42501' });
    await expect(catalogue.raw('delete from catalogue.knex_migrations')).rejects.toMatchObject({ code: '42501' });
    expect((await catalogue.raw<{ rows: unknown[] }>('select count(*) from catalogue.knex_migrations')).rows).toHaveLength(1);
    const inventory = loginOf('inventory');
    expect((await inventory.raw<{ rows: { count: string }[] }>('select count(*) from inventory.orders')).rows[0]?.count).toBe('2');
    await expect(inventory.raw('select count(*) from notifications.endpoints')).rejects.toMatchObject({ code: '42501' });
  });

  test('an internal token of one caller is refused by a route meant for another', async () => {
    const call = async (service: string, method: string, path: string, token: string) => {
      const response = await fetch(`${stack.serviceUrls[service]?.[0] ?? ''}${path}`, {
        method,
        headers: {
          'x-internal-token': token,
          'x-request-id': newId('request'),
          'x-account-id': account.account.id,
          'x-environment': 'live',
          'content-type': 'application/json',
        },
        body: method === 'GET' ? undefined : JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1, live_balance_cents: 1_000_000, bytes: 1 }),
      });
      return { status: response.status, code: ((await response.json()) as { error?: { code?: string } }).error?.code };
    };
    const tokens = stack.callerTokens;
    // A caller the service hears from is refused by the route (403); one it never hears from, at its door (401).
    const refusal = (service: string, caller: InternalCaller) =>
      CALLERS_OF[service]?.includes(caller) ? { status: 403, code: 'key_out_of_scope' } : { status: 401, code: 'key_invalid' };
    // Buying at the vendor: catalogue's supply admits inventory alone.
    for (const caller of ['gateway', 'gateway-admin', 'sandbox-simulator'] as const) {
      expect(await call('catalogue', 'POST', '/internal/supply/orders', tokens[caller]), caller).toEqual(refusal('catalogue', caller));
    }
    expect((await call('catalogue', 'POST', '/internal/supply/orders', tokens.inventory)).status).not.toBe(403);
    // Setting a balance: the admin listener alone.
    const balance = `/internal/accounts/${account.account.id}`;
    for (const caller of ['gateway', 'inventory', 'sandbox-simulator'] as const) {
      expect(await call('inventory', 'PUT', balance, tokens[caller]), caller).toEqual(refusal('inventory', caller));
    }
    // Usage on an eSIM: the simulator alone.
    const usage = `/internal/esims/${newId('esim')}/usage`;
    for (const caller of ['gateway', 'gateway-admin', 'inventory'] as const) {
      expect(await call('inventory', 'POST', usage, tokens[caller]), caller).toEqual(refusal('inventory', caller));
    }
    expect((await call('inventory', 'POST', usage, tokens['sandbox-simulator'])).status).not.toBe(403);
    // A public route: the gateway's forward alone.
    for (const caller of ['gateway-admin', 'inventory', 'sandbox-simulator'] as const) {
      expect(await call('inventory', 'GET', '/v1/balance', tokens[caller]), caller).toEqual(refusal('inventory', caller));
    }
    // A token no caller holds is refused before any route.
    expect(await call('inventory', 'GET', '/v1/balance', randomBytes(32).toString('base64url'))).toEqual({ status: 401, code: 'key_invalid' });
  });
});
