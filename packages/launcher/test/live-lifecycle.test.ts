import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertNoViolations, startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { eventually } from '@connectivity/platform/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hookUrl, liveSupplierEnv, optInAiraloWebhook } from '../src/fake-supplier.ts';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { operatorOf } from './support/operator.ts';

/** How often the test asks the API: well inside the key's rate limit. */
const POLL_MS = 300;

interface LiveEsim {
  id: string;
  iccid: string;
  state: string;
  expired_reason: string | null;
  data_used_bytes: number;
  data_limit_bytes: number | null;
  activation_code: string | null;
}
interface ListedEvent {
  id: string;
  type: string;
  data: { object: { id: string }; threshold_percent?: number };
}

/**
 * The live life cycle end to end, for each vendor, through the public gateway only: a verified
 * live account buys three eSIMs from the vendor's fake; the fake installs, attaches and uses one
 * until its data runs out and lets another's validity end. Each move must reach the account as
 * one event, exactly once: once with the vendor's callbacks arriving at the gateway's
 * `/hooks/<vendor>` (and reconciliation running beside them, as it does in production), once
 * with every callback dropped (reconciliation alone).
 *
 * Live webhook endpoints need https and a public address (record 0253), which a test on the
 * loopback cannot have; the account's events are read where `pnpm cli listen` reads them, from
 * the event list and stream of the live key, which carry the same events a webhook endpoint gets.
 */
describe.each([
  { vendor: 'esim-go' as const, callbacks: true },
  { vendor: 'esim-go' as const, callbacks: false },
  { vendor: 'airalo' as const, callbacks: true },
  { vendor: 'airalo' as const, callbacks: false },
])('the live life cycle from $vendor (callbacks $callbacks)', ({ vendor, callbacks }) => {
  let fake: AiraloFake | EsimGoFake;
  let stack: LocalStack;
  let dataDir = '';
  let live = '';

  /** The vendor's own form of one of our ICCIDs (vendors may add a check digit). */
  const vendorIccid = (iccid: string): string => {
    const known = 'apiKey' in fake ? Object.keys(fake.control.state().esims) : Object.keys(fake.control.state().sims);
    const found = known.find((candidate) => candidate.startsWith(iccid));
    if (!found) throw new Error(`the ${vendor} fake sold no eSIM ${iccid}`);
    return found;
  };
  const api = (method: string, pathname: string, body?: unknown) => stack.call(live, method, pathname, body);
  const eventsOf = async (esimId: string): Promise<ListedEvent[]> => {
    const listed = await api('GET', '/v1/events?limit=100');
    expect(listed.status).toBe(200);
    return (listed.body.data as ListedEvent[]).filter((event) => event.data.object.id === esimId).reverse();
  };
  const namesOf = (events: ListedEvent[]) => events.map((e) => (e.type === 'esim.usage.threshold' ? `${e.type}:${e.data.threshold_percent}` : e.type));

  beforeAll(async () => {
    fake = vendor === 'airalo' ? await startAiraloFake({ checkWebhookOnOptIn: false, usageCacheMs: 0 }) : await startEsimGoFake();
    dataDir = await mkdtemp(path.join(tmpdir(), `live-lifecycle-${vendor}-`));
    stack = await startLocalStack({
      DATA_DIR: dataDir,
      ...liveSupplierEnv(fake),
      // Reconciliation asks the vendor about every live eSIM that is not final; with callbacks it
      // is the safety net (slower), without them the only path (a few seconds, not minutes, here).
      SUPPLIER_RECONCILE_INTERVAL_MS: callbacks ? '2000' : '500',
      SUPPLIER_REPORTS_POLL_INTERVAL_MS: '200',
      // The fake answers live usage (usageCacheMs 0): the adapter is told the same (record 0234).
      AIRALO_USAGE_CACHE_MS: '0',
    });
    const hook = hookUrl(stack.composition.gatewayUrl, vendor);
    if ('apiKey' in fake) fake.control.setCallbackUrl(hook);
    else await optInAiraloWebhook(fake, hook);
    fake.control.setCallbacks(callbacks);
    await fake.control.resetObservations();

    const operator = await operatorOf(dataDir);
    const account = await operator.createAccount(`Live ${vendor}`);
    await operator.setAccount(account.id, { verified: true, live_balance_cents: 10_000_000 });
    live = account.live;
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('installs, activates, crosses 50/80/100 %, runs out or reaches the end of its validity: each event once', async () => {
    const catalogue = await api('GET', '/v1/esim/bundles?limit=100');
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    const bundles = catalogue.body.data as { name: string; data_mb: number | null; duration_days?: number; simulated: boolean }[];
    const bundle = bundles.find((b) => b.data_mb !== null && b.data_mb > 0 && b.duration_days !== undefined);
    if (!bundle) throw new Error(`the ${vendor} fake sells no bundle with a data limit and a validity`);
    expect(bundle.simulated).toBe(false);

    const order = await api('POST', '/v1/esim', { bundle: bundle.name, quantity: 3 });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const [used, ended, untouched] = order.body.esims as LiveEsim[];
    if (!used || !ended || !untouched) throw new Error('the order made fewer than 3 eSIMs');
    expect(fake.control.counters().purchases).toBe(1);
    for (const esim of [used, ended, untouched]) {
      expect(esim).toMatchObject({ state: 'released', expired_reason: null, data_used_bytes: 0 });
      expect(esim.activation_code).toMatch(/^LPA:1\$/);
      const qr = await fetch(`${stack.composition.gatewayUrl}/v1/esim/${esim.id}/qr_code`, { headers: { authorization: `Bearer ${live}` } });
      expect(qr.status).toBe(200);
      await qr.arrayBuffer();
    }
    const limit = used.data_limit_bytes;
    if (limit === null) throw new Error('the bundle has a data limit');

    // The handset installs the profile, attaches, then uses data: half, then 85 %, then all of it.
    await fake.control.install(vendorIccid(used.iccid));
    await fake.control.attach(vendorIccid(used.iccid));
    // Record 0230: Airalo's package starts at the attach; eSIM Go's bundle at the first data use.
    const attached = vendor === 'airalo' ? 'active' : 'installed';
    await eventually(async () => expect((await api('GET', `/v1/esim/${used.id}`)).body.state).toBe(attached), 30_000, POLL_MS);
    await fake.control.useData(vendorIccid(used.iccid), Math.ceil(limit * 0.55));
    await eventually(async () => expect(namesOf(await eventsOf(used.id))).toContain('esim.usage.threshold:50'), 30_000, POLL_MS);
    await fake.control.useData(vendorIccid(used.iccid), Math.ceil(limit * 0.3));
    await eventually(async () => expect(namesOf(await eventsOf(used.id))).toContain('esim.usage.threshold:80'), 30_000, POLL_MS);
    await fake.control.deplete(vendorIccid(used.iccid));
    // Another is never used, and its validity ends.
    await fake.control.expire(vendorIccid(ended.iccid));

    await eventually(
      async () => {
        expect((await api('GET', `/v1/esim/${used.id}`)).body).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit });
        expect((await api('GET', `/v1/esim/${ended.id}`)).body).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' });
      },
      30_000,
      POLL_MS,
    );
    // Let reconciliation come by again (and late callbacks arrive): nothing may be announced twice.
    await new Promise((resolve) => setTimeout(resolve, callbacks ? 2_500 : 1_500));

    expect(namesOf(await eventsOf(used.id))).toEqual([
      'esim.released',
      'esim.installed',
      'esim.activated',
      'esim.usage.threshold:50',
      'esim.usage.threshold:80',
      'esim.usage.threshold:100',
      'esim.expired',
    ]);
    expect(namesOf(await eventsOf(ended.id))).toEqual(['esim.released', 'esim.expired']);
    expect(namesOf(await eventsOf(untouched.id))).toEqual(['esim.released']);
    expect((await api('GET', `/v1/esim/${untouched.id}`)).body).toMatchObject({ state: 'released', expired_reason: null });
    const expiry = (await eventsOf(used.id)).at(-1) as ListedEvent & { data: { object: { expired_reason: string } } };
    expect(expiry.data.object.expired_reason).toBe('data_exhausted');

    // What the vendor called back, and how the gateway answered.
    const sent = fake.control.callbacks();
    if (callbacks) {
      expect(sent.length).toBeGreaterThan(0);
      for (const callback of sent) expect(callback.outcome, callback.body).toBe(200);
    } else {
      for (const callback of sent) expect(callback.outcome).toBe('dropped');
    }
    // Nothing bought twice, and every request we sent was one the vendor's document allows.
    expect(fake.control.counters().purchases).toBe(1);
    assertNoViolations(fake, 'both');
  }, 180_000);
});
