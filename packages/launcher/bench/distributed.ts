import { performance } from 'node:perf_hooks';
import { CURRENT_SERVICE_VERSION } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { newId } from '@connectivity/platform';
import { startDistributedStack, type DistributedStack } from '../src/distributed-stack.ts';
import { environmentOf, memoryAfterLoad, SETTLE_MS, startBareForward } from './support/children.ts';
import { cpuMeter, pidsNamed } from './support/cpu-meter.ts';
import { profileClock } from './support/cpu-profile.ts';
import { load, quantile, sequentialClient } from './support/load.ts';
import { rows, notes, throughput, ordersRow } from './support/report.ts';
import {
  BUNDLES,
  CONNECTIONS,
  DATABASE_URL,
  NATS_URL,
  ORDER,
  ORDER_CONNECTIONS,
  RATE_LIMIT,
  REDIS_URL,
  SECONDS,
  WARM_SECONDS,
  WEBHOOK_ORDERS,
  WEBHOOK_ORDERS_AT_ONCE,
  log,
  measure,
  onCleanup,
  profileTarget,
  profileWindow,
  seconds,
  verbose,
} from './support/run.ts';
import type { OtlpSink } from './support/otlp-sink.ts';
import { idempotencyKey, orderToWebhook, subscribe } from './support/webhook-latency.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

/**
 * The distributed form (one process per service on PostgreSQL, NATS and Redis), loaded as an
 * integrator's suite loads it: reads, then orders with no pause, then orders whose webhooks are
 * timed behind whatever the burst left queued, then the memory every process holds.
 */
export async function distributed(sink: OtlpSink, cpuProfFlags: string[]): Promise<void> {
  log(`starting the distributed stack (5 processes, PostgreSQL ${new URL(DATABASE_URL).host}, NATS ${new URL(NATS_URL).host})...`);
  const profiled = profileTarget && profileTarget !== 'embedded' ? profileTarget : undefined;
  const t0 = performance.now();
  const stack: DistributedStack = await startDistributedStack({
    databaseUrl: DATABASE_URL,
    natsUrl: NATS_URL,
    // The webhook receiver listens on 127.0.0.1.
    // The bench measures throughput, not the quota of test eSIMs a day (record 0212): a burst passes it.
    env: {
      RATE_LIMIT_PER_MINUTE: RATE_LIMIT,
      TEST_ESIMS_PER_DAY: '100000000',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      REDIS_URL,
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
    ...(profiled && { envOf: { [profiled]: { NODE_OPTIONS: [process.env.NODE_OPTIONS, ...cpuProfFlags].filter(Boolean).join(' ') } } }),
    stdio: verbose ? 'inherit' : 'ignore',
  });
  const closeStack = onCleanup(() => stack.close());
  log(`stack ready in ${seconds(performance.now() - t0)}`);
  if (profiled) profileWindow.from = profileClock();

  const gatewayUrl = stack.gatewayUrls[0] ?? '';
  const gatewayName = stack.names.gateway?.[0] ?? 'gateway';
  const account = await createAccount(stack.knex, { name: 'bench' });
  const auth = { authorization: `Bearer ${account.test.secret}` };

  // The stack does not say where the catalogue listens; the gateway was started with its URL.
  const gatewayEnv = await environmentOf(stack.supervisor.pid(gatewayName) ?? 0);
  const catalogueUrl = stack.env.CATALOGUE_URL ?? gatewayEnv.CATALOGUE_URL;
  if (!catalogueUrl) throw new Error('cannot find the catalogue URL');

  await gatewayOverhead(stack, gatewayUrl, catalogueUrl, auth, account);

  // An integrator's suite subscribes first, so every order of the burst below sends its webhook too.
  const receiver = await startWebhookReceiver();
  onCleanup(() => receiver.close());
  await subscribe(gatewayUrl, auth, receiver);

  const version = await measure('GET /v1/version', { url: gatewayUrl, path: '/v1/version', headers: auth, connections: CONNECTIONS });
  rows.push({
    figure: 'authenticated GET /v1/version',
    measured: throughput(version),
    rps: version.rps,
    hello: version.hello,
    goal: '≥ 0.35 of hello',
    minRatio: 0.35,
  });
  const bundles = await measure(`GET ${BUNDLES}`, { url: gatewayUrl, path: BUNDLES, headers: auth, connections: CONNECTIONS });
  rows.push({ figure: `GET ${BUNDLES}`, measured: throughput(bundles), rps: bundles.rps, hello: bundles.hello, goal: '≥ 0.35 of hello', minRatio: 0.35 });
  // The same read forwarded every time (the edge cache skipped): what a first or a varied read costs.
  const uncached = await measure(`GET ${BUNDLES} (no-cache)`, {
    url: gatewayUrl,
    path: BUNDLES,
    headers: { ...auth, 'cache-control': 'no-cache' },
    connections: CONNECTIONS,
  });
  rows.push({ figure: `GET ${BUNDLES}, edge cache skipped`, measured: throughput(uncached), rps: uncached.rps, hello: uncached.hello, goal: '' });

  // Orders right after the reads, each with its own Idempotency-Key; where each order's CPU goes,
  // per process (what a change to the path moves, whatever the shared machine's speed).
  const orderHeaders = { ...auth, 'content-type': 'application/json' };
  const meter = cpuMeter({
    ...Object.fromEntries(
      Object.values(stack.names)
        .flat()
        .map((name) => [name, () => [stack.supervisor.pid(name) ?? 0]]),
    ),
    postgres: () => pidsNamed('postgres'),
    'nats-server': () => pidsNamed('nats-server'),
    'redis-server': () => pidsNamed('redis-server'),
  });
  const orders = await measure(
    `POST /v1/esim (${ORDER_CONNECTIONS} connections, right after the reads)`,
    {
      url: gatewayUrl,
      path: '/v1/esim',
      method: 'POST',
      headers: orderHeaders,
      body: ORDER,
      perRequestHeaders: idempotencyKey,
      connections: ORDER_CONNECTIONS,
    },
    { meter, helloAfter: true, cold: true },
  );
  if (orders.cpuMs && orders.ok > 0) {
    const perOrder = Object.entries(orders.cpuMs).map(([name, ms]) => [name, ms / orders.ok] as const);
    const total = perOrder.reduce((sum, [, ms]) => sum + ms, 0);
    notes.push(
      `CPU per order (POST /v1/esim at ${ORDER_CONNECTIONS} connections; /proc, 10 ms ticks): ${total.toFixed(2)} ms in all: ` +
        perOrder.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', '),
    );
  }
  rows.push(ordersRow(`POST /v1/esim, ${ORDER_CONNECTIONS} connections, right after the reads (idempotency on)`, orders, 500));

  const webhooks = await orderToWebhook({
    url: gatewayUrl,
    headers: orderHeaders,
    body: ORDER,
    receiver,
    count: WEBHOOK_ORDERS,
    atOnce: WEBHOOK_ORDERS_AT_ONCE,
    timeoutMs: 120_000,
  });
  rows.push({
    figure: `order 201 → verified esim.released webhook, ${WEBHOOK_ORDERS} orders ${WEBHOOK_ORDERS_AT_ONCE} at a time right after the burst of ${orders.ok}`,
    measured: webhooks.text,
    goal: 'p50 < 50 ms, p99 < 250 ms',
    met: webhooks.met,
  });
  log(`webhooks: ${webhooks.text}`);
  if (profiled) profileWindow.to = profileClock();

  const names = Object.values(stack.names).flat();
  const memory = await memoryAfterLoad(names.map((name) => stack.supervisor.pid(name) ?? 0));
  const sum = (values: number[]) => values.reduce((total, rss) => total + rss, 0);
  const total = sum(memory.settled);
  rows.push({
    figure: `resident memory after load, every process of the stack (VmRSS, ${seconds(SETTLE_MS)} after the last request)`,
    measured: `${Math.round(total)} MiB: ${names.map((name, i) => `${name} ${Math.round(memory.settled[i] ?? Number.NaN)}`).join(', ')} (at the last request ${Math.round(sum(memory.atLoad))} MiB)`,
    goal: '< 1.2 GB',
    met: total * 1.048576 < 1200,
  });

  await tracingCost(stack, sink, { url: gatewayUrl, name: gatewayName, env: gatewayEnv }, auth);
  await closeStack();
}

/**
 * Gateway overhead on one connection: the same request through the gateway and straight to the
 * catalogue with the internal headers the gateway sends, interleaved in small blocks so a change
 * in the machine's load hits both alike. A bare express + undici forward to the same catalogue
 * (support/bare-forward.ts) is timed alike: the floor of any forward built on this framework.
 */
async function gatewayOverhead(
  stack: DistributedStack,
  gatewayUrl: string,
  catalogueUrl: string,
  auth: Record<string, string>,
  account: Awaited<ReturnType<typeof createAccount>>,
): Promise<void> {
  const bare = await startBareForward(catalogueUrl);
  const stopBare = onCleanup(() => bare.stop());
  const internalHeaders = () => ({
    accept: 'application/json',
    'x-internal-token': stack.callerTokens.gateway,
    'x-account-id': account.account.id,
    'x-environment': 'test',
    'x-key-id': account.test.key.id,
    'x-request-id': newId('request'),
    'service-version': CURRENT_SERVICE_VERSION,
  });
  // The edge would answer a repeated read from its cache; this figure is the cost of a forward.
  const clients = {
    gateway: sequentialClient(gatewayUrl, BUNDLES, () => ({ ...auth, 'cache-control': 'no-cache' })),
    catalogue: sequentialClient(catalogueUrl, BUNDLES, internalHeaders),
    'bare forward': sequentialClient(bare.url, BUNDLES, internalHeaders),
  };
  const times = { gateway: [] as number[], catalogue: [] as number[], 'bare forward': [] as number[] };
  const take = async (what: keyof typeof clients, record: boolean) => {
    const answer = await clients[what].once();
    if (answer.status !== 200) throw new Error(`${what} ${BUNDLES} answered ${answer.status}`);
    if (record) times[what].push(answer.ms);
  };
  const names = Object.keys(clients) as (keyof typeof clients)[];
  for (let i = 0; i < 100; i += 1) for (const what of names) await take(what, false);
  const until = performance.now() + 3 * SECONDS * 1000;
  while (performance.now() < until) {
    for (const what of names) for (let i = 0; i < 25; i += 1) await take(what, true);
  }
  for (const client of Object.values(clients)) client.close();
  await stopBare();
  const p50 = (what: keyof typeof clients) =>
    quantile(
      times[what].sort((a, b) => a - b),
      0.5,
    );
  const overhead = p50('gateway') - p50('catalogue');
  const floor = p50('bare forward') - p50('catalogue');
  rows.push({
    figure: 'gateway overhead, 1 connection (p50 gateway − p50 catalogue)',
    measured:
      `${overhead.toFixed(2)} ms (gateway p50 ${p50('gateway').toFixed(2)}, direct p50 ${p50('catalogue').toFixed(2)} ms; ${times.gateway.length}+${times.catalogue.length} requests); ` +
      `a bare express + undici forward adds ${floor.toFixed(2)} ms`,
    goal: '≤ 1 ms',
    met: overhead <= 1,
  });
  log(`gateway overhead: ${rows.at(-1)?.measured}`);
}

/**
 * The cost of tracing: /v1/version on a freshly restarted gateway (the only process this route
 * touches) with traces on, then on one restarted with OTEL_TRACES_SAMPLER=always_off, each warmed
 * up alike, so neither is measured against a process with a longer JIT history.
 */
async function tracingCost(
  stack: DistributedStack,
  sink: OtlpSink,
  gateway: { url: string; name: string; env: Record<string, string> },
  auth: Record<string, string>,
): Promise<void> {
  const restartGateway = async (env: NodeJS.ProcessEnv) => {
    await stack.supervisor.restart(gateway.name, {
      service: 'gateway',
      name: gateway.name,
      port: Number(new URL(gateway.url).port),
      // The gateway's own environment (its peers, admin listener and credentials), plus the setting measured.
      env: { ...gateway.env, ...env },
    });
    await load({ url: gateway.url, path: '/v1/version', headers: auth, connections: CONNECTIONS, durationSeconds: WARM_SECONDS });
  };
  const version = { url: gateway.url, path: '/v1/version', headers: auth, connections: CONNECTIONS };
  await restartGateway({});
  const traced = await measure('GET /v1/version (restarted gateway, traced)', version);
  await restartGateway({ OTEL_TRACES_SAMPLER: 'always_off' });
  const exportedBefore = sink.received.traces.bytes;
  const untraced = await measure('GET /v1/version (restarted gateway, always_off)', version);
  rows.push({
    figure: 'GET /v1/version, gateway with OTEL_TRACES_SAMPLER=always_off',
    measured: throughput(untraced),
    rps: untraced.rps,
    hello: untraced.hello,
    goal: '',
  });
  notes.push(
    `cost of tracing (GET /v1/version, distributed, each on a freshly restarted gateway): ${Math.round(traced.rps)} req/s traced vs ` +
      `${Math.round(untraced.rps)} req/s always_off, traced/untraced = ${(traced.rps / untraced.rps).toFixed(2)} ` +
      `(${(traced.rps / traced.hello / (untraced.rps / untraced.hello)).toFixed(2)} as ratios to their hello-worlds)` +
      `; ${((sink.received.traces.bytes - exportedBefore) / 1024).toFixed(0)} KiB of spans reached the sink during the always_off run, from all processes`,
  );
}
