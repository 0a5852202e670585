// `pnpm bench:api` (and part of `pnpm bench`): the hot path, as the issue "The hot path" asks for
// it. Every throughput figure is measured with the same load generator as a plain express
// hello-world run in a child process of the same Node, measured just before it, and printed with
// its ratio to it, since the machine is shared and only such ratios mean anything. Tracing stays on: every process exports its
// spans over OTLP/HTTP to a sink in this process. Prints figures; asserts nothing (exits non-zero
// only when the bench itself broke). With the orders figure it prints the CPU each process spent
// per order (from /proc), which moves far less with the shared machine's speed than a rate does.
//
//   node bench/hot-path.ts [--quick] [--profile gateway|catalogue|inventory|notifications|sandbox-simulator|embedded] [--verbose]
//
// --quick (or BENCH_QUICK=1): 3 s per figure instead of 10. PostgreSQL, NATS and Redis come from
// DATABASE_URL / NATS_URL / REDIS_URL, else the local defaults below; the embedded form uses none
// of them, as on a fresh laptop.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CURRENT_SERVICE_VERSION } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import { newId } from '@connectivity/platform';
import { freePort, startDistributedStack, type DistributedStack } from '../src/distributed-stack.ts';
import { URL_VARIABLE } from '../src/services.ts';
import { ROOT, environmentOf, liveChildren, memoryOf, startBareForward, startEmbedded, startHelloWorld, type Child } from './support/children.ts';
import { cpuMeter, pidsNamed } from './support/cpu-meter.ts';
import { hotFunctions, profileClock, readProfiles, type Window } from './support/cpu-profile.ts';
import { load, quantile, sequentialClient, type LoadOptions, type LoadResult } from './support/load.ts';
import { startOtlpSink } from './support/otlp-sink.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const PROFILE_TARGETS = ['gateway', 'catalogue', 'inventory', 'notifications', 'sandbox-simulator', 'embedded'];
const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, profile: { type: 'string' }, verbose: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const quick = args.quick || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
if (args.profile !== undefined && !PROFILE_TARGETS.includes(args.profile)) {
  console.error(`--profile takes one of ${PROFILE_TARGETS.join(', ')}`);
  process.exit(2);
}
const SECONDS = quick ? 3 : 10;
const WARM_SECONDS = quick ? 1 : 2;
// The hello-world is measured just before each figure it divides, so a change in the shared
// machine's load between figures shows in both.
const HELLO_SECONDS = quick ? 2 : 5;
const CONNECTIONS = 20;
// The webhook stream: steady and moderate, so what is measured is delivery, not a queue.
const WEBHOOK_ORDERS_PER_SECOND = 30;
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';
// The distributed form's shared rate-limit store where the gateway has one (as in docker-compose).
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
// The bench measures the service, not the per-key budget.
const RATE_LIMIT = '1000000000';
const ORDER = JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 });
const BUNDLES = '/v1/esim/bundles?countries=FR';

// ---------------------------------------------------------------------------------------------
// Clean-up on every way out: an error, Ctrl-C, or the end.

const cleanups: (() => Promise<unknown>)[] = [];
/** Registers an async clean-up; the function returned runs it (once) and can be awaited. */
function onCleanup(fn: () => Promise<unknown>): () => Promise<unknown> {
  let done: Promise<unknown> | undefined;
  const once = () => (done ??= fn().catch((error: unknown) => console.error(`clean-up failed: ${String(error)}`)));
  cleanups.push(once);
  return once;
}
async function cleanAll(): Promise<void> {
  for (const fn of [...cleanups].reverse()) await fn();
  for (const child of liveChildren()) child.kill('SIGKILL');
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping every process the bench started...`);
    void cleanAll().finally(() => process.exit(130));
  });
}

const log = (line: string) => console.log(`  · ${line}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(62)]).join('');
const idempotencyKey = () => ({ 'idempotency-key': randomBytes(12).toString('hex') });

let helloUrl = '';
/** Every hello-world measurement of the run, in req/s. */
const hellos: number[] = [];

/**
 * A warm-up run (not recorded), the hello-world, then the measured run; with a `meter`, the CPU
 * each metered process spent during the measured run.
 */
async function measure(
  what: string,
  options: Omit<LoadOptions, 'connections' | 'durationSeconds'>,
  meter?: ReturnType<typeof cpuMeter>,
): Promise<LoadResult & { hello: number; cpuMs?: Record<string, number> }> {
  await load({ ...options, connections: CONNECTIONS, durationSeconds: WARM_SECONDS });
  const hello = (await load({ url: helloUrl, path: '/', connections: CONNECTIONS, durationSeconds: HELLO_SECONDS })).rps;
  hellos.push(hello);
  const stopMeter = meter?.start();
  const result = await load({ ...options, connections: CONNECTIONS, durationSeconds: SECONDS });
  const cpuMs = stopMeter?.();
  log(
    `${what}: ${Math.round(result.rps)}/s, p50 ${result.p50} ms, p99 ${result.p99} ms` +
      `${result.failures ? `, ${result.failures} failures (${result.failureDetail})` : ''} (hello world just before: ${Math.round(hello)}/s)`,
  );
  return { ...result, hello, ...(cpuMs && { cpuMs }) };
}

// ---------------------------------------------------------------------------------------------
// What is printed at the end.

interface Row {
  figure: string;
  measured: string;
  /** Successful requests per second, shown as a ratio to the hello-world's measured just before. */
  rps?: number;
  hello?: number;
  goal: string;
  /** A goal stated as a ratio to the hello-world: met when at least this. */
  minRatio?: number;
  /** A goal stated otherwise; undefined: no goal. */
  met?: boolean;
}
const rows: Row[] = [];
const notes: string[] = [];

const throughput = (result: LoadResult, unit = 'req/s') =>
  `${Math.round(result.rps)} ${unit} (p50 ${result.p50} ms, p99 ${result.p99} ms)${result.failures ? `, ${result.failures} failed: ${result.failureDetail}` : ''}`;

function printTable(): void {
  const header = ['figure', 'measured', 'ratio to hello', 'goal', 'status'];
  const cells = rows.map((row) => {
    const ratio = row.rps === undefined || row.hello === undefined ? undefined : row.rps / row.hello;
    const met = row.minRatio !== undefined && ratio !== undefined ? ratio >= row.minRatio : row.met;
    return [row.figure, row.measured, ratio === undefined ? '' : ratio.toFixed(2), row.goal, met === undefined ? '' : met ? 'met' : 'NOT met'];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i]?.length ?? 0)));
  const line = (cell: string[]) => `| ${cell.map((text, i) => text.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cell of cells) console.log(line(cell));
}

// ---------------------------------------------------------------------------------------------

const startedAt = performance.now();
const [load1, load5, load15] = loadavg().map((value) => value.toFixed(2));
console.log(
  `hot-path bench (${quick ? 'quick' : 'full'}: ${SECONDS} s per figure after ${WARM_SECONDS} s warm-up, ${CONNECTIONS} connections), Node ${process.version}, ` +
    `${availableParallelism()} cores, load average at start ${load1} ${load5} ${load15}`,
);

const profileDir = args.profile ? await mkdtemp(join(tmpdir(), 'connectivity-cpu-prof-')) : undefined;
const cpuProfFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
// The part of the profiled process's life that is summarised: its load, not its start-up or shutdown.
const profileWindow: Window = { from: 0, to: Number.POSITIVE_INFINITY };

const sink = await startOtlpSink();
onCleanup(() => sink.close());
const hello = await startHelloWorld();
onCleanup(() => hello.stop());
helloUrl = hello.url;

async function distributed(): Promise<void> {
  log(`starting the distributed stack (5 processes, PostgreSQL ${new URL(DATABASE_URL).host}, NATS ${new URL(NATS_URL).host})...`);
  const profiled = args.profile && args.profile !== 'embedded' ? args.profile : undefined;
  const t0 = performance.now();
  const stack: DistributedStack = await startDistributedStack({
    databaseUrl: DATABASE_URL,
    natsUrl: NATS_URL,
    // The webhook receiver listens on 127.0.0.1.
    env: { RATE_LIMIT_PER_MINUTE: RATE_LIMIT, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, REDIS_URL, WEBHOOK_ALLOW_PRIVATE: '1' },
    ...(profiled && { envOf: { [profiled]: { NODE_OPTIONS: [process.env.NODE_OPTIONS, ...cpuProfFlags].filter(Boolean).join(' ') } } }),
    stdio: args.verbose ? 'inherit' : 'ignore',
  });
  const closeStack = onCleanup(() => stack.close());
  log(`stack ready in ${seconds(performance.now() - t0)}`);
  if (profiled) profileWindow.from = profileClock();

  const gatewayUrl = stack.gatewayUrls[0] ?? '';
  const gatewayName = stack.names.gateway?.[0] ?? 'gateway';
  const account = await createAccount(stack.knex, { name: 'bench' });
  const key = account.test.secret;
  const auth = { authorization: `Bearer ${key}` };

  // The stack does not say where the catalogue listens; the gateway was started with its URL.
  const gatewayEnv = await environmentOf(stack.supervisor.pid(gatewayName) ?? 0);
  const catalogueUrl = stack.env.CATALOGUE_URL ?? gatewayEnv.CATALOGUE_URL;
  if (!catalogueUrl) throw new Error('cannot find the catalogue URL');

  // 1. Gateway overhead on one connection: the same request through the gateway and straight to
  // the catalogue with the internal headers the gateway sends, interleaved in small blocks so a
  // change in the machine's load hits both alike. A bare express + undici forward to the same
  // catalogue (see support/bare-forward.ts) is timed alike: the floor of any forward built on this
  // framework, so the figure's part that is the edge's own work shows.
  {
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

  // 2 and 3. Reads at 20 connections.
  const version = await measure('GET /v1/version', { url: gatewayUrl, path: '/v1/version', headers: auth });
  rows.push({
    figure: 'authenticated GET /v1/version',
    measured: throughput(version),
    rps: version.rps,
    hello: version.hello,
    goal: '≥ 0.30 of hello',
    minRatio: 0.3,
  });
  const bundles = await measure(`GET ${BUNDLES}`, { url: gatewayUrl, path: BUNDLES, headers: auth });
  rows.push({ figure: `GET ${BUNDLES}`, measured: throughput(bundles), rps: bundles.rps, hello: bundles.hello, goal: '≥ 0.25 of hello', minRatio: 0.25 });
  // The same read forwarded every time (the edge cache skipped): what a first or a varied read costs.
  const uncached = await measure(`GET ${BUNDLES} (no-cache)`, { url: gatewayUrl, path: BUNDLES, headers: { ...auth, 'cache-control': 'no-cache' } });
  rows.push({ figure: `GET ${BUNDLES}, edge cache skipped`, measured: throughput(uncached), rps: uncached.rps, hello: uncached.hello, goal: '' });

  // 4. Orders at 20 connections, each with its own Idempotency-Key.
  const orderRequest = {
    url: gatewayUrl,
    path: '/v1/esim',
    method: 'POST' as const,
    headers: { ...auth, 'content-type': 'application/json' },
    body: ORDER,
    perRequestHeaders: idempotencyKey,
  };
  // Where an order's CPU goes, per process: what a change to the path moves, whatever the
  // shared machine's speed (a rate moves with it).
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
  const orders = await measure('POST /v1/esim', orderRequest, meter);
  if (orders.cpuMs && orders.ok > 0) {
    const perOrder = Object.entries(orders.cpuMs).map(([name, ms]) => [name, ms / orders.ok] as const);
    const total = perOrder.reduce((sum, [, ms]) => sum + ms, 0);
    notes.push(
      `CPU per order (POST /v1/esim at ${CONNECTIONS} connections; /proc, 10 ms ticks): ${total.toFixed(2)} ms in all: ` +
        perOrder.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', '),
    );
  }
  rows.push({
    figure: 'POST /v1/esim (idempotency on, PostgreSQL)',
    measured: throughput(orders, 'orders/s'),
    rps: orders.rps,
    hello: orders.hello,
    goal: '≥ 300 orders/s',
    met: orders.rps >= 300 && orders.ok > 0,
  });

  // 5. Order → verified webhook, under a steady moderate stream once the backlog of the load
  // above has drained (else its events would queue in front of these).
  {
    const drained = await waitUntilQuiet(stack, 120_000);
    log(drained ? 'events of the order load drained' : 'events of the order load still draining after 120 s; measuring anyway');
    const receiver = await startWebhookReceiver();
    onCleanup(() => receiver.close());
    const created = await fetch(`${gatewayUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', ...idempotencyKey() },
      body: JSON.stringify({ url: receiver.url, enabled_events: ['esim.released'] }),
    });
    const endpoint = (await created.json()) as { secret?: string };
    if (created.status !== 201 || !endpoint.secret) throw new Error(`POST /v1/webhooks answered ${created.status}`);
    receiver.useSecret(endpoint.secret);

    const order = async (): Promise<{ esimId: string; at: number } | undefined> => {
      const response = await fetch(`${gatewayUrl}/v1/esim`, { method: 'POST', headers: { ...orderRequest.headers, ...idempotencyKey() }, body: ORDER });
      const at = performance.now();
      const body = (await response.json()) as { esims?: { id: string }[] };
      const esimId = body.esims?.[0]?.id;
      return response.status === 201 && esimId ? { esimId, at } : undefined;
    };
    // A first order end to end, so the consumer and the delivery path are warm.
    const probe = await order();
    if (!probe || !(await receiver.waitFor(probe.esimId, 60_000))) throw new Error('the first order’s esim.released webhook did not arrive within 60 s');

    // At most half the saturating rate just measured: a stream the stack can keep up with.
    const rate = Math.max(5, Math.min(WEBHOOK_ORDERS_PER_SECOND, Math.floor(orders.rps / 2)));
    const count = rate * SECONDS;
    const interval = 1000 / rate;
    const streamStart = performance.now();
    const placed: Promise<{ esimId: string; at: number } | undefined>[] = [];
    for (let i = 0; i < count; i += 1) {
      const due = streamStart + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      placed.push(order().catch(() => undefined));
    }
    const answered = await Promise.all(placed);
    const ok = answered.filter((entry): entry is { esimId: string; at: number } => entry !== undefined);
    await Promise.all(ok.map((entry) => receiver.waitFor(entry.esimId, 30_000)));
    const delays = ok
      .filter((entry) => receiver.released.has(entry.esimId))
      .map((entry) => (receiver.released.get(entry.esimId) ?? 0) - entry.at)
      .sort((a, b) => a - b);
    const missing = ok.length - delays.length;
    const p50 = quantile(delays, 0.5);
    const p99 = quantile(delays, 0.99);
    const early = delays.filter((delay) => delay < 0).length;
    rows.push({
      figure: `order 201 → verified esim.released webhook (${rate} orders/s)`,
      measured:
        `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${delays.length} matched` +
        `${early ? `, ${early} before their 201` : ''}${missing ? `, ${missing} never arrived` : ''}${count - ok.length ? `, ${count - ok.length} orders failed` : ''}; rejected signatures ${receiver.rejected})`,
      goal: 'p50 < 50 ms, p99 < 250 ms',
      met: delays.length > 0 && missing === 0 && p50 < 50 && p99 < 250,
    });
    log(`webhooks: ${rows.at(-1)?.measured}`);
  }

  // The cost of tracing: /v1/version on a freshly restarted gateway (the only process this route
  // touches) with traces on, then on one restarted with OTEL_TRACES_SAMPLER=always_off, each
  // warmed up alike, so neither is measured against a process with a longer JIT history.
  {
    if (profiled) profileWindow.to = profileClock();
    const peers = Object.fromEntries(Object.values(URL_VARIABLE).map((variable) => [variable, gatewayEnv[variable]]));
    const restartGateway = async (env: NodeJS.ProcessEnv) => {
      await stack.supervisor.restart(gatewayName, {
        service: 'gateway',
        name: gatewayName,
        port: Number(new URL(gatewayUrl).port),
        env: { ...peers, ADMIN_PORT: gatewayEnv.ADMIN_PORT, ...env },
      });
      await load({ url: gatewayUrl, path: '/v1/version', headers: auth, connections: CONNECTIONS, durationSeconds: WARM_SECONDS });
    };
    await restartGateway({});
    const traced = await measure('GET /v1/version (restarted gateway, traced)', { url: gatewayUrl, path: '/v1/version', headers: auth });
    await restartGateway({ OTEL_TRACES_SAMPLER: 'always_off' });
    const exportedBefore = sink.received.traces.bytes;
    const untraced = await measure('GET /v1/version (restarted gateway, always_off)', { url: gatewayUrl, path: '/v1/version', headers: auth });
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

  await closeStack();
}

/** Until the inventory outbox is empty and notifications has stopped storing events for a second. */
async function waitUntilQuiet(stack: DistributedStack, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  let lastEvents = -1;
  let stableSince = performance.now();
  while (performance.now() < deadline) {
    const pending = await stack.knex('inventory.outbox').whereNull('published_at').count<{ count: string }[]>({ count: '*' });
    const events = await stack.knex('notifications.events').count<{ count: string }[]>({ count: '*' });
    const stored = Number(events[0]?.count ?? 0);
    if (stored !== lastEvents || Number(pending[0]?.count ?? 0) > 0) {
      lastEvents = stored;
      stableSince = performance.now();
    } else if (performance.now() - stableSince >= 1_000) {
      return true;
    }
    await sleep(200);
  }
  return false;
}

async function embedded(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'connectivity-bench-data-'));
  onCleanup(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const adminPort = await freePort();
  const testKey = `sk_test_${base62(32)}`;
  const options = {
    port,
    adminPort,
    dataDir,
    testKey,
    env: { RATE_LIMIT_PER_MINUTE: RATE_LIMIT, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    verbose: args.verbose,
  };
  const url = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${testKey}` };

  log('starting the embedded form (pnpm start) on an empty DATA_DIR...');
  const first: Child & { readyMs: number } = await startEmbedded({ ...options, ...(args.profile === 'embedded' && { nodeArgs: cpuProfFlags }) });
  const stopFirst = onCleanup(() => first.stop());
  log(`ready in ${seconds(first.readyMs)}`);
  // The dev key is written just after the gateway starts listening.
  const keyDeadline = performance.now() + 30_000;
  while (
    (await fetch(`${url}/v1/version`, { headers: auth }).then(
      (response) => response.status,
      () => 0,
    )) !== 200
  ) {
    if (performance.now() > keyDeadline) throw new Error('the embedded dev key did not work within 30 s of /readyz');
    await sleep(50);
  }
  if (args.profile === 'embedded') profileWindow.from = profileClock();

  const version = await measure('embedded GET /v1/version', { url, path: '/v1/version', headers: auth });
  rows.push({
    figure: 'embedded (pnpm start) GET /v1/version',
    measured: throughput(version),
    rps: version.rps,
    hello: version.hello,
    goal: '≥ 0.20 of hello',
    minRatio: 0.2,
  });
  const orders = await measure('embedded POST /v1/esim', {
    url,
    path: '/v1/esim',
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: ORDER,
    perRequestHeaders: idempotencyKey,
  });
  rows.push({
    figure: 'embedded POST /v1/esim',
    measured: throughput(orders, 'orders/s'),
    rps: orders.rps,
    hello: orders.hello,
    goal: '≥ 100 orders/s',
    met: orders.rps >= 100 && orders.ok > 0,
  });
  if (args.profile === 'embedded') profileWindow.to = profileClock();
  const memory = await memoryOf(first.pid);
  rows.push({
    figure: 'embedded memory after load (VmRSS)',
    measured: `${Math.round(memory.rss)} MiB (peak ${Math.round(memory.peak)} MiB)`,
    goal: '< 400 MB',
    met: memory.rss * 1.048576 < 400,
  });
  await stopFirst();

  const warm = await startEmbedded(options);
  const stopWarm = onCleanup(() => warm.stop());
  await stopWarm();
  log(`warm start ready in ${seconds(warm.readyMs)}`);
  rows.push({
    figure: 'embedded start (spawn → /readyz 200)',
    measured: `warm ${seconds(warm.readyMs)}, first ${seconds(first.readyMs)}`,
    goal: 'warm < 5 s, first < 10 s',
    met: warm.readyMs < 5_000 && first.readyMs < 10_000,
  });
}

async function printProfiles(): Promise<void> {
  if (!profileDir) return;
  const profiles = await readProfiles(profileDir);
  if (profiles.length === 0) console.log(`\nno .cpuprofile was written for ${args.profile} (it must exit gracefully to write one)`);
  for (const { file, profile } of profiles) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one, the others
    // are worker threads (e.g. the one that runs the telemetry's module-loader hooks).
    const [, , , pid, thread] = file.split('.');
    const { functions, owners, busyMs, idleMs } = hotFunctions(profile, ROOT, profileWindow);
    if (thread !== '0' && busyMs < 100) {
      console.log(`\n${args.profile} (pid ${pid}) worker thread ${thread}: ${busyMs.toFixed(0)} ms busy under load, not listed`);
      continue;
    }
    const which = thread === '0' ? `pid ${pid}, main thread` : `pid ${pid}, worker thread ${thread}`;
    console.log(
      `\nCPU profile of ${args.profile} (${which}), from the end of its start-up to the end of its load: ` +
        `${seconds(busyMs)} busy, ${seconds(idleMs)} idle; top ${functions.length} by self time:`,
    );
    for (const fn of functions) {
      console.log(`  ${fn.selfMs.toFixed(0).padStart(7)} ms ${(fn.share * 100).toFixed(1).padStart(5)}%  ${fn.name}  ${fn.where}`);
    }
    console.log(`  self time by owner: ${owners.map(({ owner, share }) => `${owner} ${(share * 100).toFixed(1)}%`).join(', ')}`);
  }
  await rm(profileDir, { recursive: true, force: true });
}

try {
  await load({ url: hello.url, path: '/', connections: CONNECTIONS, durationSeconds: WARM_SECONDS });
  await distributed();
  await embedded();
  await cleanAll();

  const [endLoad1, endLoad5, endLoad15] = loadavg().map((value) => value.toFixed(2));
  console.log('');
  printTable();
  console.log('');
  console.log(
    `hello world (express 5.1.0 in a child process, GET /, ${CONNECTIONS} connections, ${HELLO_SECONDS} s just before each figure with a ratio): ` +
      `${hellos.map((rps) => Math.round(rps)).join(', ')} req/s (median ${Math.round(
        quantile(
          [...hellos].sort((a, b) => a - b),
          0.5,
        ),
      )})`,
  );
  for (const note of notes) console.log(note);
  console.log(
    `OTLP sink received ${sink.received.traces.requests} trace exports (${(sink.received.traces.bytes / 1024 / 1024).toFixed(1)} MiB) ` +
      `and ${sink.received.metrics.requests} metric exports`,
  );
  console.log(
    `load average at start ${load1} ${load5} ${load15}, at the end ${endLoad1} ${endLoad5} ${endLoad15}; ${availableParallelism()} cores; run took ${seconds(performance.now() - startedAt)}`,
  );
  await printProfiles();
} catch (error) {
  if (!interrupted) {
    console.error('\nthe bench broke:', error);
    await cleanAll();
    if (rows.length > 0) {
      console.log('\nwhat was measured before it broke:');
      printTable();
    }
    process.exit(1);
  }
}
