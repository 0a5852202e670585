import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureDevAccount } from '@connectivity/gateway';
import { createClient, verifyWebhook, type TypedEvent } from '@connectivity/sdk';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

/**
 * What an integrator does with the SDK, against the real system: typed calls through the
 * gateway, and a webhook receiver that verifies deliveries with the SDK's `verifyWebhook`.
 */
describe('the SDK against the running system', () => {
  let stack: LocalStack;
  let receiver: Server;
  let receiverUrl = '';
  let secret = '';
  const received: TypedEvent[] = [];
  let client: ReturnType<typeof createClient>;

  beforeAll(async () => {
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    const { testKey } = await ensureDevAccount({ db: stack.db });
    client = createClient({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl });
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          received.push(verifyWebhook(Buffer.concat(chunks), req.headers, secret));
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sdk-hooks`;
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  test('typed calls buy, move and use an eSIM; the webhooks verify as typed events', async () => {
    const hook = await client.webhooks.createWebhook({ headers: { 'idempotency-key': 'sdk-hook-0001' }, body: { url: receiverUrl, enabled_events: ['esim.released', 'esim.installed'] } });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    secret = hook.body.secret;

    const version = await client.meta.getVersion();
    expect(version.status === 200 && version.body.version).toBe('2026-09-01');

    const order = await client.esim.createEsim({ headers: { 'idempotency-key': 'sdk-order-0001' }, body: { bundle: 'esim_5GB_30D_EU' } });
    if (order.status !== 201) throw new Error(`order: ${order.status} ${JSON.stringify(order.body)}`);
    const esim = order.body.esims[0];
    expect(esim?.iccid).toMatch(/^89882\d{14}$/);

    // The same Idempotency-Key returns the stored answer, not a second order.
    const again = await client.esim.createEsim({ headers: { 'idempotency-key': 'sdk-order-0001' }, body: { bundle: 'esim_5GB_30D_EU' } });
    expect(again.status === 201 && again.body.id).toBe(order.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const moved = await client.esim.updateEsim({ params: { id: esim?.id ?? '' }, headers: { 'idempotency-key': 'sdk-move-00001' }, body: { state: 'installed' } });
    expect(moved.status === 200 && moved.body.state).toBe('installed');

    const refused = await client.esim.updateEsim({ params: { id: esim?.id ?? '' }, headers: { 'idempotency-key': 'sdk-move-00002' }, body: { state: 'released' } });
    expect(refused.status).toBe(409);
    if (refused.status === 409) expect(refused.body.error.code).toBe('invalid_state_transition');

    const listed = await client.esim.listEsims({ query: { limit: 5 } });
    expect(listed.status === 200 && listed.body.data.map((item) => item.id)).toContain(esim?.id);

    await vi.waitFor(
      () => {
        const mine = received.filter((event) => 'object' in event.data && event.data.object.id === esim?.id);
        expect(mine.map((event) => event.type).sort()).toEqual(['esim.installed', 'esim.released']);
      },
      { timeout: 30_000, interval: 100 },
    );
  }, 120_000);
});
