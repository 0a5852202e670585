import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { routeTable } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCommand } from '../src/start-command.ts';
import { waitUntilReady } from '../src/wait-ready.ts';
import { startReceiver } from './support/receiver.ts';

/**
 * The README's first command, as a fresh machine runs it: `pnpm start` with no DATABASE_URL or
 * NATS_URL (PGlite on disk + the in-process bus), driven only through the public port.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const execFileAsync = promisify(execFile);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const key = (prefix: string) => `${prefix}${randomBytes(24).toString('hex')}`;

describe('pnpm start (embedded)', () => {
  let dataDir: string;
  /** Node's compile cache for these starts: the script's own folder, moved aside so the test sees what one start writes. */
  let compileCache: string;
  let port: number;
  let child: ChildProcess | undefined;
  const testKey = key('sk_test_');
  const liveKey = key('sk_live_');

  async function start(): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      ADMIN_PORT: '0',
      DATA_DIR: dataDir,
      DEV_TEST_KEY: testKey,
      DEV_LIVE_KEY: liveKey,
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.NATS_URL;
    // pnpm start's own default is what is tested.
    delete env.WEBHOOK_ALLOW_PRIVATE;
    const start = startCommand();
    child = spawn(process.execPath, start.args, {
      cwd: root,
      env: { ...env, ...start.env, NODE_COMPILE_CACHE: compileCache },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitUntilReady(`http://127.0.0.1:${port}/readyz`, 150_000);
  }

  async function stop(): Promise<number | null> {
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'connectivity-embedded-'));
    compileCache = await mkdtemp(join(tmpdir(), 'connectivity-compile-cache-'));
    port = await freePort();
    await start();
  }, 200_000);

  afterAll(async () => {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(compileCache, { recursive: true, force: true });
  });

  test("leaves Node's compile cache as soon as it listens, while still running, so the next start reuses it (record 0270)", async () => {
    expect(startCommand().env.NODE_COMPILE_CACHE).toBeTruthy();
    // One folder per Node version, holding an entry per module compiled (and per TypeScript file
    // stripped). It is written just after the gateway listens, so /readyz can answer while the
    // entries are still being written: wait for them (without the flush none come while it runs).
    const entries = async () => {
      const [version] = await readdir(compileCache);
      return version === undefined ? 0 : (await readdir(join(compileCache, version))).length;
    };
    await expect.poll(entries, { timeout: 20_000, interval: 100 }).toBeGreaterThan(500);
    const [version] = await readdir(compileCache);
    expect(version).toMatch(/^v\d+\./);
  });

  test('serves openapi.json without a key, with every route of the contract', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\./);
    const served = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
    const expected = routeTable.map(({ route }) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(expected.length).toBeGreaterThanOrEqual(14);
    expect(served.sort()).toEqual(expect.arrayContaining(expected));
  });

  test('the dev keys work, and the data survives a restart', async () => {
    const list = async () => fetch(`http://127.0.0.1:${port}/v1/esim`, { headers: { authorization: `Bearer ${testKey}` } });
    const before = await list();
    expect(before.status).toBe(200);
    expect(before.headers.get('request-id')).toMatch(/^req_/);
    expect(await before.json()).toMatchObject({ object: 'list', data: [] });

    expect(await stop()).toBe(0);
    await start();
    const after = await list();
    expect(after.status).toBe(200);
    const live = await fetch(`http://127.0.0.1:${port}/v1/esim`, { headers: { authorization: `Bearer ${liveKey}` } });
    expect(live.status).toBe(200);
  }, 200_000);

  test('a test webhook endpoint on localhost is accepted and delivered to: pnpm start allows private addresses (WEBHOOK_ALLOW_PRIVATE)', async () => {
    const receiver = await startReceiver();
    try {
      const call = (path: string, body: unknown) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
          body: JSON.stringify(body),
        });
      const hook = await call('/v1/webhooks', { url: receiver.url, enabled_events: ['esim.released'] });
      expect(hook.status).toBe(201);
      receiver.useSecret(((await hook.json()) as { secret: string }).secret);
      const order = await call('/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity: 1 });
      expect(order.status).toBe(201);
      const esimId = ((await order.json()) as { esims: { id: string }[] }).esims[0]?.id;
      await expect.poll(() => [...receiver.delivered.values()].some((event) => event.data.object?.id === esimId), { timeout: 30_000 }).toBe(true);
      expect(receiver.rejected).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  test('pnpm cli creates an account whose keys work at once against the running process', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
    delete env.ADMIN_URL;
    delete env.ADMIN_TOKEN;
    const { stdout } = await execFileAsync(process.execPath, ['packages/cli/src/main.ts', 'account', 'create', '--name', 'Acme', '--json'], { cwd: root, env });
    const created = JSON.parse(stdout) as { id: string; keys: { test: { secret: string }; live: { secret: string } } };
    expect(created.id).toMatch(/^acct_/);
    for (const secret of [created.keys.test.secret, created.keys.live.secret]) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/esim`, { headers: { authorization: `Bearer ${secret}` } });
      expect(response.status).toBe(200);
    }
  });
});
