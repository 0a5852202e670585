import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { hookUrl, liveSupplierEnv, optInAiraloWebhook } from '../src/fake-supplier.ts';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { operatorOf, type Operator } from './support/operator.ts';

/**
 * The live life cycle end to end, for each vendor against its fake, through the public gateway:
 * a verified live account buys 3 eSIMs; the fake installs, attaches and uses one to depletion and
 * lets another's validity end; the account's events (what its webhook endpoints are sent, read
 * from GET /v1/events, since a live endpoint must be public https and cannot be on this machine)
 * are esim.installed, esim.activated, esim.usage.threshold (50, 80, 100) and esim.expired, each
 * exactly once: once with the vendor's callbacks reaching the gateway's /hooks/<vendor>, once with
 * callbacks dropped (reconciliation alone).
 */
interface Delivered {
  id: string;
  type: string;
  data: { object?: { id?: string; expired_reason?: string | null }; threshold_percent?: number };
}

const BUNDLES = { airalo: 'change-7days-1gb', 'esim-go': 'esim_1GB_7D_GB_V2' } as const;

describe.each(['airalo', 'esim-go'] as const)('the live life cycle from %s, through the gateway', (vendor) => {
  let stack: LocalStack;
  let fake: AiraloFake | EsimGoFake;
  let dataDir = '';
  let operator: Operator;

  beforeAll(async () => {
    fake = vendor === 'airalo' ? await startAiraloFake({ checkWebhookOnOptIn: false }) : await startEsimGoFake();
    dataDir = await mkdtemp(path.join(tmpdir(), 'live-lifecycle-'));
    stack = await startLocalStack({
      DATA_DIR: dataDir,
      ...liveSupplierEnv(fake),
      DELIVERY_POLL_INTERVAL_MS: '50',
      SUPPLIER_REPORTS_POLL_INTERVAL_MS: '200',
      SUPPLIER_RECONCILE_INTERVAL_MS: '500',
    });
    const hook = hookUrl(stack.composition.gatewayUrl, vendor);
    if ('credentials' in fake) await optInAiraloWebhook(fake, hook);
    else fake.control.setCallbackUrl(hook);
    operator = await operatorOf(dataDir);

  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const callbacks of [true, false]) {
    test(callbacks ? 'with callbacks' : 'with callbacks dropped: reconciliation alone', async () => {
      await fake.control.resetObservations();
      fake.control.setCallbacks(callbacks);
      const account = await operator.createAccount(`Live ${vendor}`);
      await operator.setAccount(account.id, { verified: true, live_balance_cents: 1_000_000 });
      const live = account.live;
      const api = (method: string, pathname: string, body?: unknown) => stack.call(live, method, pathname, body);

      const order = await api('POST', '/v1/esim', { bundle: BUNDLES[vendor], quantity: 3 });
      expect(order.status, JSON.stringify(order.body)).toBe(201);
      const [used, idle, untouched] = order.body.esims as { id: string; iccid: string; activation_code: string }[];
      if (!used || !idle || !untouched) throw new Error('the order made fewer than 3 eSIMs');
      expect(used.activation_code).toMatch(/^LPA:1\$/);
      const qr = await fetch(`${stack.composition.gatewayUrl}/v1/esim/${used.id}/qr_code`, { headers: { authorization: `Bearer ${live}` } });
      expect(qr.status).toBe(200);

      await fake.control.install(used.iccid);
      await fake.control.attach(used.iccid);
      await fake.control.useData(used.iccid, 600_000_000);
      await fake.control.deplete(used.iccid);
      await fake.control.expire(idle.iccid);

      let delivered: Delivered[] = [];
      const readEvents = async () => {
        const events = await api('GET', '/v1/events?limit=100');
        expect(events.status).toBe(200);
        delivered = events.body.data as Delivered[];
      };
      const typesOf = (esimId: string) =>
        delivered
          .filter((event) => event.data.object?.id === esimId)
          .map((event) => (event.type === 'esim.usage.threshold' ? `${event.type}:${String(event.data.threshold_percent)}` : event.type));
      const fullLife = ['esim.released', 'esim.installed', 'esim.activated', 'esim.usage.threshold:50', 'esim.usage.threshold:80', 'esim.usage.threshold:100', 'esim.expired'];
      await vi.waitFor(
        async () => {
          await readEvents();
          expect(typesOf(used.id).sort()).toEqual([...fullLife].sort());
          expect(typesOf(idle.id).sort()).toEqual(['esim.expired', 'esim.released']);
        },
        { timeout: 45_000, interval: 200 },
      );
      // Nothing more comes: each event once, whichever path reported it.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await readEvents();
      expect(typesOf(used.id).sort()).toEqual([...fullLife].sort());
      expect(typesOf(idle.id).sort()).toEqual(['esim.expired', 'esim.released']);
      expect(typesOf(untouched.id)).toEqual(['esim.released']);
      expect(new Set(delivered.map((event) => event.id)).size).toBe(delivered.length);
      const expiredReason = (esimId: string) => delivered.find((event) => event.type === 'esim.expired' && event.data.object?.id === esimId)?.data.object?.expired_reason;
      expect(expiredReason(used.id)).toBe('data_exhausted');
      expect(expiredReason(idle.id)).toBe('validity_ended');
      // The vendor's callbacks reached the hook and were taken (200), or were all dropped.
      const outcomes = fake.control.callbacks().map((callback) => callback.outcome);
      expect(outcomes.length).toBeGreaterThan(0);
      expect(new Set(outcomes)).toEqual(new Set([callbacks ? 200 : 'dropped']));
      expect((await api('GET', `/v1/esim/${used.id}`)).body).toMatchObject({ state: 'expired', data_used_bytes: expect.any(Number) as unknown });
    }, 120_000);
  }
});
