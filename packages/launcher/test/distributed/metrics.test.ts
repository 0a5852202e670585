import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { startReceiver } from '../support/receiver.ts';
import { distributedBackends, until } from './support.ts';

/**
 * What an SRE without a collector sees: each process's own `/metrics` (Prometheus text), the
 * services on their internal listener and the gateway on its admin listener, after an order, a
 * webhook delivery, a replayed request and a refused one.
 */
type Series = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    series.push({ name: match[1] ?? '', labels, value: Number(match[4]) });
  }
  return series;
}

const value = (series: Series[], name: string, labels: Record<string, string> = {}) =>
  series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
const has = (series: Series[], name: string, labels: Record<string, string> = {}) =>
  series.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

describe('metrics on /metrics of every process', () => {
  let stack: DistributedStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let key = '';

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startDistributedStack({
      ...distributedBackends(),
      stdio: 'ignore',
      env: { RATE_LIMIT_PER_MINUTE: '40', DELIVERY_POLL_INTERVAL_MS: '100', WEBHOOK_ALLOW_PRIVATE: '1' },
    });
    key = (await createAccount(stack.knex)).test.secret;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const scrape = async (url: string) => parse(await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${stack.metricsToken}` } })).text());
  const gatewayUrl = () => stack.gatewayUrls[0] ?? '';
  const call = (method: string, path: string, idempotencyKey?: string, body?: unknown) =>
    fetch(`${gatewayUrl()}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idempotencyKey && { 'idempotency-key': idempotencyKey }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  test('after an order, a delivery, a replay and a refusal, the named series are there with their labels and counts', async () => {
    const hook = await call('POST', '/v1/webhooks', `hook-${randomBytes(6).toString('hex')}`, { url: receiver.url, enabled_events: ['esim.released'] });
    receiver.useSecret(String(((await hook.json()) as { secret: string }).secret));
    const orderKey = `order-${randomBytes(6).toString('hex')}`;
    const order = { bundle: 'esim_5GB_30D_EU', quantity: 1 };
    expect((await call('POST', '/v1/esim', orderKey, order)).status).toBe(201);
    // The same order again: replayed by inventory, from the record it wrote with the order.
    expect((await call('POST', '/v1/esim', orderKey, order)).headers.get('idempotent-replayed')).toBe('true');
    await until('the delivery', () => receiver.delivered.size === 1, 60_000);
    // Past the budget of 40 a minute.
    let refused = 0;
    for (let i = 0; i < 45 && refused === 0; i += 1) if ((await call('GET', '/v1/version')).status === 429) refused += 1;
    expect(refused).toBe(1);

    const [gateway, inventory, notifications] = await Promise.all([
      scrape(stack.adminUrls[0] ?? ''),
      scrape(stack.serviceUrls.inventory?.[0] ?? ''),
      scrape(stack.serviceUrls.notifications?.[0] ?? ''),
    ]);

    // RED per route, from the SDK's HTTP instrumentation, on the gateway and the services.
    expect(value(gateway, 'http_server_request_duration_count', { http_route: '/v1/esim', http_request_method: 'POST' })).toBe(2);
    expect(has(inventory, 'http_server_request_duration_count', { http_route: '/v1/esim' })).toBe(true);
    // The edge: one refusal for the key. The service that owns the order: one replay.
    expect(value(gateway, 'connectivity_ratelimit_refusals_total', { scope: 'key' })).toBe(1);
    expect(value(inventory, 'connectivity_idempotency_replays_total', { layer: 'service' })).toBe(1);
    // The outbox: nothing left pending once the event is out.
    expect(has(inventory, 'connectivity_outbox_pending', { schema: 'inventory' })).toBe(true);
    expect(value(inventory, 'connectivity_outbox_pending', { schema: 'inventory' })).toBe(0);
    expect(has(inventory, 'connectivity_outbox_oldest_age', { schema: 'inventory' })).toBe(true);
    // The consumer and the delivery.
    expect(has(notifications, 'connectivity_consumer_lag', { durable: 'notifications' })).toBe(true);
    expect(has(inventory, 'connectivity_consumer_lag', { durable: 'supplier-reports' })).toBe(true);
    expect(value(notifications, 'connectivity_webhook_attempts_total', { outcome: 'succeeded' })).toBe(1);
    expect(value(notifications, 'connectivity_webhook_delivery_latency_count')).toBe(1);
  });
});
