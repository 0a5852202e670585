import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startArguments } from '../../src/start-command.ts';
import { ROOT } from '../../src/supervisor.ts';
import { waitUntilReady } from '../../src/wait-ready.ts';
import { checkOneTrace, TELEMETRY } from '../support/one-trace.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends } from './support.ts';

// One trace per request, from the edge to the webhook (support/one-trace.ts), in both forms.

describe('one trace per request: distributed form (a process per service, PostgreSQL + NATS)', () => {
  let stack: DistributedStack;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let key = '';

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      // The receiver listens on 127.0.0.1.
      env: { ...TELEMETRY, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, DELIVERY_POLL_INTERVAL_MS: '100', WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    key = (await createAccount(stack.knex)).test.secret;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
    await otlp?.close();
  });

  test('gateway → inventory → outbox → NATS → notifications → webhook: one trace, right parents, no polls', async () => {
    const { client } = await checkOneTrace({ gatewayUrl: stack.gatewayUrls[0] ?? '', key }, otlp.spans, receiver);
    // Each hop was made by the service that owns it.
    const services = new Set(otlp.spans.filter((s) => s.traceId === client.traceId).map((s) => s.service));
    for (const name of ['gateway', 'inventory', 'catalogue', 'notifications']) expect(services).toContain(name);
  });
});

describe('one trace per request: embedded form (pnpm start: one process, PGlite + in-process bus)', () => {
  let child: ChildProcess;
  let dataDir: string;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gatewayUrl = '';
  const key = `sk_test_${randomBytes(24).toString('hex').slice(0, 32)}`;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    dataDir = await mkdtemp(path.join(tmpdir(), 'trace-embedded-'));
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...TELEMETRY,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      PORT: String(port),
      ADMIN_PORT: '0',
      DATA_DIR: dataDir,
      DEV_TEST_KEY: key,
      LOG_LEVEL: 'warn',
      DELIVERY_POLL_INTERVAL_MS: '100',
    };
    for (const name of ['DATABASE_URL', 'NATS_URL', 'REDIS_URL']) delete env[name];
    child = spawn(process.execPath, startArguments(), { cwd: ROOT, env, stdio: 'ignore' });
    await waitUntilReady(`${gatewayUrl}/readyz`, 120_000);
  }, 180_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await receiver?.close();
    await otlp?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('the same trace, every hop in one process', async () => {
    await checkOneTrace({ gatewayUrl, key }, otlp.spans, receiver);
  });
});
