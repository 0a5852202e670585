import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/distributed-stack.ts';
import { memoryAfterLoad, SETTLE_MS, startEmbedded, type Child } from './support/children.ts';
import { profileClock } from './support/cpu-profile.ts';
import type { OtlpSink } from './support/otlp-sink.ts';
import { load } from './support/load.ts';
import { rows, throughput, ordersRow } from './support/report.ts';
import {
  BURST_BEFORE_WEBHOOKS,
  CONNECTIONS,
  GETS_BEFORE_ORDERS,
  ORDER,
  ORDER_CONNECTIONS,
  RATE_LIMIT,
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
import { idempotencyKey, orderToWebhook, subscribe } from './support/webhook-latency.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) => Array.from({ length }, () => BASE62[randomInt(62)]).join('');

/**
 * The embedded form (`pnpm start`: one process, PGlite, the in-process bus) loaded as an
 * integrator's test suite loads it: 100 k reads, orders with no pause after them, then orders
 * whose webhooks are timed behind whatever the burst left queued; its memory after; a warm start.
 */
export async function embedded(sink: OtlpSink, cpuProfFlags: string[]): Promise<void> {
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
    // The bench measures throughput, not the quota of test eSIMs a day (record 0212): a burst passes it.
    env: { RATE_LIMIT_PER_MINUTE: RATE_LIMIT, TEST_ESIMS_PER_DAY: '100000000', LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    verbose,
  };
  const url = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${testKey}` };

  log('starting the embedded form (pnpm start) on an empty DATA_DIR...');
  const first: Child & { readyMs: number } = await startEmbedded({ ...options, ...(profileTarget === 'embedded' && { nodeArgs: cpuProfFlags }) });
  const stopFirst = onCleanup(() => first.stop());
  log(`ready in ${seconds(first.readyMs)}`);
  // The dev account is made before the gateway listens: its key works as soon as /readyz answers.
  const keyCheck = await fetch(`${url}/v1/version`, { headers: auth });
  if (keyCheck.status !== 200) throw new Error(`the embedded dev key did not work once /readyz answered (${keyCheck.status})`);
  if (profileTarget === 'embedded') profileWindow.from = profileClock();

  const receiver = await startWebhookReceiver();
  onCleanup(() => receiver.close());
  await subscribe(url, auth, receiver);

  const version = await measure(`embedded GET /v1/version (${GETS_BEFORE_ORDERS} requests)`, {
    url,
    path: '/v1/version',
    headers: auth,
    connections: CONNECTIONS,
    amount: GETS_BEFORE_ORDERS,
  });
  rows.push({
    figure: `embedded (pnpm start) GET /v1/version, ${GETS_BEFORE_ORDERS} requests`,
    measured: throughput(version),
    rps: version.rps,
    hello: version.hello,
    goal: '≥ 0.25 of hello',
    minRatio: 0.25,
  });
  const orderHeaders = { ...auth, 'content-type': 'application/json' };
  const orders = await measure(
    `embedded POST /v1/esim (${ORDER_CONNECTIONS} connections, right after the reads)`,
    { url, path: '/v1/esim', method: 'POST', headers: orderHeaders, body: ORDER, perRequestHeaders: idempotencyKey, connections: ORDER_CONNECTIONS },
    { helloAfter: true, cold: true },
  );
  rows.push(ordersRow(`embedded POST /v1/esim, ${ORDER_CONNECTIONS} connections, right after the reads`, orders, 400));
  // The burst the webhooks are timed behind is never smaller than BURST_BEFORE_WEBHOOKS orders.
  let burst = orders.ok;
  if (burst < BURST_BEFORE_WEBHOOKS) {
    const rest = await load({
      url,
      path: '/v1/esim',
      method: 'POST',
      headers: orderHeaders,
      body: ORDER,
      perRequestHeaders: idempotencyKey,
      connections: Math.min(ORDER_CONNECTIONS, BURST_BEFORE_WEBHOOKS - burst),
      durationSeconds: 0,
      amount: BURST_BEFORE_WEBHOOKS - burst,
    });
    burst += rest.ok;
    log(`embedded burst topped up with ${rest.ok} more orders (${rest.failures} failed) to ${burst}`);
  }
  const webhooks = await orderToWebhook({
    url,
    headers: orderHeaders,
    body: ORDER,
    receiver,
    count: WEBHOOK_ORDERS,
    atOnce: WEBHOOK_ORDERS_AT_ONCE,
    timeoutMs: 120_000,
  });
  rows.push({
    figure: `embedded order 201 → verified esim.released webhook, ${WEBHOOK_ORDERS} orders ${WEBHOOK_ORDERS_AT_ONCE} at a time right after the burst of ${burst}`,
    measured: webhooks.text,
    goal: 'p99 < 250 ms',
    met: burst >= BURST_BEFORE_WEBHOOKS && webhooks.matched > 0 && webhooks.missing === 0 && webhooks.failed === 0 && webhooks.p99 < 250,
  });
  log(`embedded webhooks: ${webhooks.text}`);
  if (profileTarget === 'embedded') profileWindow.to = profileClock();

  const memory = await memoryAfterLoad([first.pid]);
  const [rss = Number.NaN] = memory.settled;
  rows.push({
    figure: `embedded memory after load (VmRSS of its one process, ${seconds(SETTLE_MS)} after the last request)`,
    measured: `${Math.round(rss)} MiB (at the last request ${Math.round(memory.atLoad[0] ?? Number.NaN)} MiB, peak ${Math.round(memory.peak[0] ?? Number.NaN)} MiB)`,
    goal: '< 300 MB',
    met: rss * 1.048576 < 300,
  });
  await stopFirst();

  const warm = await startEmbedded(options);
  const stopWarm = onCleanup(() => warm.stop());
  await stopWarm();
  log(`warm start ready in ${seconds(warm.readyMs)}`);
  rows.push({
    figure: 'embedded start (spawn → /readyz 200)',
    measured: `warm ${seconds(warm.readyMs)}, first ${seconds(first.readyMs)}`,
    goal: 'warm < 2 s',
    met: warm.readyMs < 2_000,
  });
}
