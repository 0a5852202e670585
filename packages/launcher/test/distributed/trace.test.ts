import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startCommand } from '../../src/start-command.ts';
import { ROOT } from '../../src/supervisor.ts';
import { waitUntilReady } from '../../src/wait-ready.ts';
import { hookUrl, liveSupplierEnv } from '../../src/fake-supplier.ts';
import { checkOneTrace, descends, expectServicesInTrace, TELEMETRY } from '../support/one-trace.ts';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, liveAccount, retryingClient, until } from './support.ts';

// One trace per request, from the edge to the webhook (support/one-trace.ts), in both forms.

describe('one trace per request: distributed form (a process per service, PostgreSQL + NATS)', () => {
  let stack: DistributedStack;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let fake: EsimGoFake;
  let key = '';

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    // The live environment buys from eSIM Go's fake, whose callbacks come to the gateway's hook.
    fake = await startEsimGoFake();
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      // The receiver listens on 127.0.0.1.
      env: {
        ...TELEMETRY,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        DELIVERY_POLL_INTERVAL_MS: '100',
        WEBHOOK_ALLOW_PRIVATE: '1',
        ...liveSupplierEnv(fake),
        // Only the callback may report the eSIM here: reconciliation would report it in a trace of its own.
        SUPPLIER_RECONCILE_INTERVAL_MS: '3600000',
        SUPPLIER_REPORTS_POLL_INTERVAL_MS: '200',
      },
    });
    fake.control.setCallbackUrl(hookUrl(stack.gatewayUrls[0] ?? '', 'esim-go'));
    key = (await createAccount(stack.knex)).test.secret;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
    await receiver?.close();
    await otlp?.close();
  });

  test('gateway → inventory → outbox → NATS → notifications → webhook: one trace, right parents, no polls', async () => {
    const { client } = await checkOneTrace({ gatewayUrl: stack.gatewayUrls[0] ?? '', key }, otlp.spans, receiver);
    // Each hop was made by the service that owns it.
    await expectServicesInTrace(otlp.spans, client.traceId, ['gateway', 'inventory', 'catalogue', 'notifications']);
  });

  test("a supplier's callback starts its own trace, which the eSIM's events continue to notifications (record 0153)", async () => {
    const { live } = await liveAccount(stack, 'Live trace', 1_000_000);
    const client = retryingClient(stack.gatewayUrls, live);
    const bundles = await client.call('GET', '/v1/esim/bundles?limit=100', undefined);
    const bundle = (bundles.body.data as { name: string; simulated: boolean }[] | undefined)?.find((b) => !b.simulated);
    if (!bundle) throw new Error(`the eSIM Go fake sells no live bundle: ${JSON.stringify(bundles.body)}`);
    const order = await client.call('POST', '/v1/esim', `trace-live-${randomBytes(6).toString('hex')}`, { bundle: bundle.name, quantity: 1 });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const [esim] = order.body.esims as { iccid: string }[];
    const vendorIccid = Object.keys(fake.control.state().esims).find((iccid) => esim && iccid.startsWith(esim.iccid));
    if (!vendorIccid) throw new Error('the fake sold no eSIM of the order');

    // The handset attaches: the fake calls /hooks/esim-go back (FirstAttachment, signed), which is
    // `installed` at eSIM Go: its bundle starts at first data use (record 0230).
    await fake.control.attach(vendorIccid);
    let found: { hook: ReceivedSpan; apply: ReceivedSpan; publish: ReceivedSpan; consume: ReceivedSpan } | undefined;
    await until(
      "the callback's trace, exported up to notifications",
      () => {
        const hook = otlp.spans.find((s) => s.service === 'gateway' && s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/hooks/esim-go');
        const inTrace = otlp.spans.filter((s) => s.traceId === hook?.traceId);
        const apply = inTrace.find((s) => s.name === 'supplier report apply');
        const publish = inTrace.find((s) => s.kind === SPAN_KIND.PRODUCER && s.name === 'events.live.esim.installed publish');
        const consume = inTrace.find((s) => s.kind === SPAN_KIND.CONSUMER && s.service === 'notifications' && s.name === 'events.live.esim.installed process');
        found = hook && apply && publish && consume ? { hook, apply, publish, consume } : undefined;
        return found !== undefined;
      },
      60_000,
    );
    const { hook, apply, publish, consume } = found!;
    // Its own trace: the vendor's request has no parent of ours.
    expect(hook.parentSpanId).toBeUndefined();
    expect(hook.attributes['http.response.status_code']).toBe(200);
    // The worker applied the stored report later, in the callback's trace; the event went on from there.
    expect(apply).toMatchObject({
      service: 'inventory',
      kind: SPAN_KIND.INTERNAL,
      attributes: { 'supplier.vendor': 'esim-go', 'supplier.report.outcome': 'applied' },
    });
    expect(descends(otlp.spans, apply, hook)).toBe(true);
    expect(descends(otlp.spans, publish, apply)).toBe(true);
    expect(consume.parentSpanId).toBe(publish.spanId);
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
    const start = startCommand();
    child = spawn(process.execPath, start.args, { cwd: ROOT, env: { ...env, ...start.env }, stdio: 'ignore' });
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
