import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { retryingClient, subscribeReceiver, until, type Answer } from '../distributed/support.ts';
import { checkOneTrace, expectServicesInTrace } from '../support/one-trace.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * The compose stack as deploy/ci-containers.sh runs it: every service from its image, migrated
 * by the launcher image, on PostgreSQL, a three-server NATS cluster and Redis. Driven from the
 * host only: the gateway's public and admin ports, a webhook receiver and an OTLP receiver at
 * the address the containers reach the host at, and a command that kills a service's process.
 */
interface ContainerStack {
  gatewayUrl: string;
  adminUrl: string;
  adminToken: string;
  /** The host's address on the containers' network: the receivers listen there. */
  hostAddress: string;
  /** Where the services export their traces (deploy/ci/compose.yml), on `hostAddress`. */
  otlpPort: number;
  /** Kills a service's process (`<command> <service>`) and returns once its container is back and healthy. */
  crashCommand: string;
}

function containerStack(): ContainerStack {
  const env = process.env;
  const missing = ['CI_GATEWAY_URL', 'CI_ADMIN_URL', 'ADMIN_TOKEN', 'CI_HOST_ADDRESS', 'CI_OTLP_PORT', 'CI_CRASH_COMMAND'].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`These tests drive the stack deploy/ci-containers.sh starts, which sets ${missing.join(', ')}.`);
  return {
    gatewayUrl: String(env.CI_GATEWAY_URL),
    adminUrl: String(env.CI_ADMIN_URL),
    adminToken: String(env.ADMIN_TOKEN),
    hostAddress: String(env.CI_HOST_ADDRESS),
    otlpPort: Number(env.CI_OTLP_PORT),
    crashCommand: String(env.CI_CRASH_COMMAND),
  };
}

const stack = containerStack();

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A new account through the admin port, with room in its rate limit for a load; its test key. */
async function newAccount(name: string): Promise<{ id: string; testKey: string }> {
  const created = await admin('POST', '/admin/accounts', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = String(created.body.id);
  const updated = await admin('PATCH', `/admin/accounts/${id}`, { rate_limit_per_minute: 100_000 });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  return { id, testKey: String((created.body.keys as { test: { secret: string } }).test.secret) };
}

const status = async (path: string, key: string) => (await fetch(`${stack.gatewayUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })).status;

/** Every event of the account, oldest page last, through the public API. */
async function allEvents(key: string): Promise<{ id: string; type: string; data: { object?: { id?: string } } }[]> {
  const events: { id: string; type: string; data: { object?: { id?: string } } }[] = [];
  for (let cursor: string | null = null; ;) {
    const page = (await (
      await fetch(`${stack.gatewayUrl}/v1/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).json()) as { data: typeof events; has_more: boolean; next_cursor: string | null };
    events.push(...page.data);
    if (!page.has_more) return events;
    cursor = page.next_cursor;
  }
}

describe('the compose stack, from the images', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;

  beforeAll(async () => {
    otlp = await startOtlpReceiver(stack.hostAddress, stack.otlpPort);
  });
  afterAll(async () => {
    await otlp?.close();
  });

  test('an account and its keys through the admin port: a rotated test key replaces the old one', async () => {
    const { id, testKey } = await newAccount('ci-admin');
    expect(await status('/v1/esim', testKey)).toBe(200);
    const rotated = await admin('POST', `/admin/accounts/${id}/keys`, { environment: 'test' });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    expect((rotated.body.replaced as { status?: string } | null)?.status).toBe('revoked');
    expect(await status('/v1/esim', String(rotated.body.secret))).toBe(200);
    await until('the old key refused everywhere', async () => (await status('/v1/esim', testKey)) === 401, 10_000);
    const refused = await fetch(`${stack.adminUrl}/admin/accounts/${id}`);
    expect(refused.status, 'the admin port without the admin token').toBe(401);
  });

  test('an order through the gateway: its webhook reaches the host, verified, in one trace from the edge to the delivery', async () => {
    const { testKey } = await newAccount('ci-trace');
    const receiver = await startReceiver(stack.hostAddress);
    try {
      const { client } = await checkOneTrace({ gatewayUrl: stack.gatewayUrl, key: testKey }, otlp.spans, receiver);
      // Each hop was made by the container that owns it, all exporting from their bundles.
      await expectServicesInTrace(otlp.spans, client.traceId, ['gateway', 'inventory', 'catalogue', 'notifications']);
      expect(receiver.rejected).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  test('inventory and notifications killed mid-flow: their restart policy brings them back, no order twice, no event lost', async () => {
    const { testKey } = await newAccount('ci-crash');
    const receiver = await startReceiver(stack.hostAddress);
    try {
      const client = retryingClient([stack.gatewayUrl], testKey);
      await subscribeReceiver(client, receiver);

      let done = 0;
      let crashesOver = false;
      const esimsByKey = new Map<string, string[]>();
      const failures: Answer[] = [];
      const worker = async (w: number) => {
        for (let i = 0, after = 0; !crashesOver || after < 5; i += 1) {
          if (crashesOver) after += 1;
          const key = `order-${w}-${i}-${randomBytes(4).toString('hex')}`;
          const order = await client.call('POST', '/v1/esim', key, { bundle: 'esim_5GB_30D_EU', quantity: 1 + (i % 2) }, 180_000);
          if (order.status === 201)
            esimsByKey.set(
              key,
              (order.body.esims as { id: string }[]).map((esim) => esim.id),
            );
          else failures.push(order);
          done += 1;
        }
      };
      const crashes = async () => {
        try {
          for (const service of ['inventory', 'notifications']) {
            const before = done;
            await until(`orders before ${service} goes`, () => done >= before + 8, 180_000);
            const { stdout } = await promisify(execFile)('sh', ['-c', `${stack.crashCommand} ${service}`], { timeout: 180_000 });
            console.log(stdout.trim());
          }
        } finally {
          crashesOver = true;
        }
      };
      await Promise.all([worker(0), worker(1), worker(2), crashes()]);

      expect(failures.map((f) => `${f.status} ${JSON.stringify(f.body)}`)).toEqual([]);
      expect(client.networkFailures() + client.errors.length, 'the crashes were felt, and retried').toBeGreaterThan(0);
      const esims = [...esimsByKey.values()].flat();
      expect(new Set(esims).size).toBe(esims.length);

      // Every eSIM released once in the event log, and every eSIM event delivered, verified.
      await until(
        'an esim.released event for every eSIM',
        async () => (await allEvents(testKey)).filter((event) => event.type === 'esim.released').length >= esims.length,
        120_000,
      );
      const events = await allEvents(testKey);
      const released = events.filter((event) => event.type === 'esim.released').map((event) => event.data.object?.id ?? '');
      expect(released.sort()).toEqual([...esims].sort());
      const esimEvents = events.filter((event) => event.type.startsWith('esim.'));
      await until('every eSIM event delivered to the host', () => esimEvents.every((event) => receiver.delivered.has(event.id)), 120_000);
      expect(receiver.rejected).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
