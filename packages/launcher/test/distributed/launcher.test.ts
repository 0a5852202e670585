import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { deleteStreams } from '@connectivity/platform/testing';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePortBlock, startDistributedStack } from '../../src/distributed-stack.ts';
import { PORT_OFFSET } from '../../src/services.ts';
import { ROOT } from '../../src/supervisor.ts';
import { distributedBackends, until } from './support.ts';

/**
 * `pnpm start:distributed` as an operator runs it: a service that fails to start stops the
 * launch with that service's own error (not a crash of the launcher), and a service that dies
 * later is started again while the others keep serving.
 */
describe('the distributed launcher', () => {
  const { databaseUrl, natsUrl } = distributedBackends();
  const databaseName = `launcher_${randomBytes(5).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 1 } });
  const url = new URL(databaseUrl);
  url.pathname = `/${databaseName}`;

  const streams: string[] = [];
  // The launcher serves on PORT and PORT + each service's offset: every one of them must be free.
  const launchPorts = () => freePortBlock(Math.max(...Object.values(PORT_OFFSET)) + 1);

  beforeAll(async () => {
    await admin.raw('create database ??', [databaseName]);
  });
  afterAll(async () => {
    await admin.raw('drop database if exists ?? with (force)', [databaseName]);
    await admin.destroy();
    await deleteStreams(
      natsUrl,
      streams.flatMap((name) => [name, `${name}_DEAD`]),
    );
  });

  function launch(env: NodeJS.ProcessEnv) {
    const unique = randomBytes(4).toString('hex');
    streams.push(`LAUNCH_${unique.toUpperCase()}`);
    const child = spawn(process.execPath, ['packages/launcher/src/distributed.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        NATS_URL: natsUrl,
        NATS_STREAM: `LAUNCH_${unique.toUpperCase()}`,
        NATS_SUBJECT_PREFIX: `l${unique}.`,
        NATS_DURABLE_PREFIX: `l${unique}-`,
        ADMIN_PORT: '0',
        LOG_LEVEL: 'info',
        OTEL_METRICS_EXPORTER: 'none',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  }

  test('a service that cannot start stops the launch with its own configuration error, not a crash of the launcher', async () => {
    const port = await launchPorts();
    // inventory refuses a sweep interval of 0 at boot.
    const run = launch({ PORT: String(port), SWEEPER_INTERVAL_MS: '0' });
    const code = await run.exited;
    expect(code).toBe(1);
    expect(run.output()).toContain('SWEEPER_INTERVAL_MS');
    expect(run.output()).toContain('a service failed to start');
    expect(run.output()).not.toContain('ReferenceError');
  }, 120_000);

  test('with NODE_ENV=production it refuses to start without its secrets, naming each, and writes no webhook key to disk', async () => {
    const port = await launchPorts();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'launcher-production-'));
    try {
      const run = launch({ PORT: String(port), NODE_ENV: 'production', DATA_DIR: dataDir, INTERNAL_TOKEN: 'an-internal-token-of-any-content' });
      expect(await run.exited).toBe(1);
      for (const name of [
        'GATEWAY_INTERNAL_TOKEN',
        'GATEWAY_ADMIN_INTERNAL_TOKEN',
        'INVENTORY_DATABASE_URL',
        'NOTIFICATIONS_NATS_PASSWORD',
        'WEBHOOK_SECRET_KEY',
        'METRICS_TOKEN',
      ]) {
        expect(run.output()).toContain(name);
      }
      expect(readdirSync(dataDir)).toEqual([]);
      // Nothing was started: no service answers on its port.
      await expect(fetch(`http://127.0.0.1:${port + 2}/healthz`)).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("a service whose output is hidden (the tests' and the bench's stacks) that cannot start is named with the last lines it wrote", async () => {
    const started = startDistributedStack({ databaseUrl, natsUrl, stdio: 'ignore', env: { SWEEPER_INTERVAL_MS: '0' } });
    await expect(started).rejects.toThrow(/inventory exited with code 1 before it was ready; its last output:\n[^]*SWEEPER_INTERVAL_MS/);
  }, 120_000);

  test('a service that dies is started again, and the others keep serving meanwhile', async () => {
    const port = await launchPorts();
    const run = launch({ PORT: String(port) });
    let code: number | null;
    try {
      const pidOf = (service: string) => {
        const lines = run
          .output()
          .split('\n')
          .filter((line) => line.includes(`"service":"${service}"`) && /"msg":"ready( again)?"/.test(line));
        const last = lines.at(-1);
        return last ? (JSON.parse(last) as { pid: number }).pid : undefined;
      };
      await until('every service ready', () => pidOf('gateway') !== undefined, 120_000);
      // The services listen on the loopback alone (SERVICES_HOST); the gateway faces clients (HOST).
      const outside = Object.values(networkInterfaces())
        .flat()
        .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
      if (outside !== undefined) {
        await expect(fetch(`http://${outside}:${port + 2}/healthz`)).rejects.toThrow();
        expect((await fetch(`http://${outside}:${port}/healthz`)).status).toBe(200);
      }
      const inventory = pidOf('inventory');
      const gateway = pidOf('gateway');
      expect(inventory).toBeDefined();
      process.kill(inventory ?? 0, 'SIGKILL');
      // The gateway stays up (its own readiness does not depend on inventory).
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await until('inventory started again', () => (pidOf('inventory') ?? inventory) !== inventory, 60_000);
      await until('inventory ready', async () => (await fetch(`http://127.0.0.1:${port + 2}/readyz`).catch(() => undefined))?.status === 200, 60_000);
      expect(pidOf('gateway')).toBe(gateway);
      expect(run.child.exitCode).toBeNull();
    } finally {
      // Stopped whatever happened; a failure above stays the one reported (an assertion here would replace it).
      run.child.kill('SIGTERM');
      code = await run.exited;
    }
    expect(code, run.output().split('\n').slice(-40).join('\n')).toBe(0);
  }, 180_000);
});
