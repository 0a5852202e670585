import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import knex from 'knex';
import { waitUntilReady } from './wait-ready.ts';

/**
 * The distributed smoke test CI runs: every service as its own process on the real PostgreSQL
 * and NATS, driven only through the gateway's public URL.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const port = Number(process.env.SMOKE_PORT ?? 18080);
const base = `http://127.0.0.1:${port}`;
const testKey = `sk_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;

// A database of its own, so the smoke test neither sees nor leaves data in the shared one.
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('The smoke test needs DATABASE_URL (PostgreSQL) and NATS_URL.');
const databaseName = `smoke_${randomBytes(6).toString('hex')}`;
const admin = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
await admin.raw('create database ??', [databaseName]);
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = `/${databaseName}`;

const child = spawn(process.execPath, ['packages/launcher/src/distributed.ts'], {
  cwd: root,
  env: {
    ...process.env,
    DATABASE_URL: databaseUrl.toString(),
    PORT: String(port),
    ADMIN_PORT: '0',
    DEV_TEST_KEY: testKey,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  },
  stdio: 'inherit',
});

const failures: string[] = [];
let passed = 0;
async function check(name: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
    passed += 1;
    console.log(`  ok   ${name}`);
  } catch (error) {
    failures.push(name);
    console.log(`  FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

try {
  await waitUntilReady(`${base}/readyz`, 120_000);
  await check('openapi.json served without a key, listing the spec endpoints', async () => {
    const response = await fetch(`${base}/v1/openapi.json`);
    expect(response.status === 200, `status ${response.status}`);
    const doc = (await response.json()) as { paths: Record<string, unknown> };
    for (const path of [
      '/v1/version',
      '/v1/esim',
      '/v1/esim/bundles',
      '/v1/esim/{id}',
      '/v1/events',
      '/v1/events/replay',
      '/v1/test/usage',
      '/v1/test/error',
      '/v1/api_keys',
    ]) {
      expect(path in doc.paths, `missing ${path}`);
    }
  });
  await check('a call without a key is 401 key_missing with the error object', async () => {
    const response = await fetch(`${base}/v1/esim`);
    const body = (await response.json()) as { error?: { code?: string } };
    expect(response.status === 401 && body.error?.code === 'key_missing', `got ${response.status} ${JSON.stringify(body)}`);
    expect(response.headers.get('request-id')?.startsWith('req_'), 'no Request-Id');
  });
  await check('the dev test key reaches inventory through the gateway', async () => {
    const response = await fetch(`${base}/v1/esim`, { headers: { authorization: `Bearer ${testKey}` } });
    const body = (await response.json()) as { object?: string };
    expect(response.status === 200 && body.object === 'list', `got ${response.status} ${JSON.stringify(body)}`);
  });
  await check('an order flows gateway → inventory → outbox → NATS → notifications (GET /v1/events)', async () => {
    const auth = { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' };
    const order = await fetch(`${base}/v1/esim`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `smoke-${randomBytes(6).toString('hex')}` },
      body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 2 }),
    });
    const created = (await order.json()) as { object?: string; esims?: { id: string }[] };
    expect(order.status === 201 && created.object === 'order', `order: ${order.status} ${JSON.stringify(created)}`);
    const ids = new Set((created.esims ?? []).map((esim) => esim.id));
    const deadline = Date.now() + 30_000;
    let seen = 0;
    while (Date.now() < deadline) {
      const events = (await (await fetch(`${base}/v1/events?limit=100`, { headers: auth })).json()) as {
        data?: { type: string; data: { object?: { id?: string } } }[];
      };
      seen = (events.data ?? []).filter((event) => event.type === 'esim.released' && ids.has(event.data.object?.id ?? '')).length;
      if (seen === ids.size) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${seen} of ${ids.size} esim.released events reached the event log`);
  });
} finally {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await admin.raw('drop database if exists ?? with (force)', [databaseName]);
  await admin.destroy();
}
console.log(`smoke: ${passed} passed, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
