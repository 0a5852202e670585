import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureDevAccount } from '@connectivity/gateway';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

/**
 * The data flow of ARCHITECTURE.md end to end, through the public gateway only: an order
 * written by inventory with its events in the outbox, published on the bus, stored by
 * notifications and delivered, signed, to a real receiver that verifies every delivery with
 * `standardwebhooks`' own Webhook.verify. Runs on PostgreSQL + NATS when configured, else on
 * PGlite + the in-process bus.
 */
interface Delivered {
  id: string;
  type: string;
  data: { object?: { id?: string; state?: string }; threshold_percent?: number };
}

describe('end to end through the gateway', () => {
  let stack: LocalStack;
  let receiver: Server;
  let receiverUrl = '';
  let testKey = '';
  let secret = '';
  const delivered: Delivered[] = [];
  const rejected: string[] = [];

  const api = (method: string, path: string, body?: unknown) => stack.call(testKey, method, path, body);

  beforeAll(async () => {
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    testKey = (await ensureDevAccount({ db: stack.db })).testKey;

    receiver = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        try {
          const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
          delivered.push(new Webhook(secret).verify(raw, headers) as Delivered);
          res.writeHead(204).end();
        } catch (error) {
          rejected.push(String(error));
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  test('an order, its usage and every state change arrive as signed, verified webhooks', async () => {
    const endpoint = await api('POST', '/v1/webhooks', { url: receiverUrl, enabled_events: ['*'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    secret = endpoint.body.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const bundles = await api('GET', '/v1/esim/bundles?limit=100');
    expect(bundles.status).toBe(200);
    const bundle = (bundles.body.data as { name: string; unlimited: boolean; data_mb: number | null }[]).find((b) => !b.unlimited && b.data_mb);
    expect(bundle).toBeDefined();

    const order = await api('POST', '/v1/esim', { bundle: bundle?.name, quantity: 1 });
    expect(order.status).toBe(201);
    const esim = (order.body.esims as { id: string; data_limit_bytes: number; state: string }[])[0];
    expect(esim?.state).toBe('released');
    const limit = esim?.data_limit_bytes ?? 0;

    for (const share of [0.6, 0.3, 0.2]) {
      const usage = await api('POST', '/v1/test/usage', { esim: esim?.id, bytes: Math.round(limit * share) });
      expect(usage.status).toBe(200);
    }
    const after = await api('GET', `/v1/esim/${esim?.id}`);
    expect(after.body).toMatchObject({ state: 'expired', data_used_bytes: limit });

    const expected = [
      'esim.released',
      'esim.installed',
      'esim.activated',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.expired',
    ];
    await vi.waitFor(
      () => {
        const forEsim = delivered.filter((event) => event.data.object?.id === esim?.id);
        expect(forEsim.map((event) => event.type).sort()).toEqual([...expected].sort());
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(rejected).toEqual([]);
    const thresholds = delivered.filter((event) => event.type === 'esim.usage.threshold').map((event) => event.data.threshold_percent);
    expect(thresholds.sort()).toEqual([100, 50, 80]);

    // The event log holds the same events, newest first, with the ids that were delivered.
    const events = await api('GET', '/v1/events?limit=100');
    expect(events.status).toBe(200);
    const logged = (events.body.data as Delivered[]).filter((event) => event.data.object?.id === esim?.id);
    expect(logged.map((event) => event.id).sort()).toEqual(
      delivered
        .filter((event) => event.data.object?.id === esim?.id)
        .map((event) => event.id)
        .sort(),
    );
    expect(logged.at(-1)?.type).toBe('esim.released');
  }, 120_000);
});
