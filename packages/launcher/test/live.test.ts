import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertNoViolations, startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { liveSupplierEnv } from '../src/fake-supplier.ts';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { operatorOf, type Operator } from './support/operator.ts';

/**
 * The live path end to end, through the public gateway and the operator admin API only: the
 * whole composition with the eSIM Go fake configured as the live supplier. Runs on
 * PostgreSQL + NATS when configured, else on PGlite + the in-process bus.
 */
describe('live supply through the gateway', () => {
  let stack: LocalStack;
  let supplier: EsimGoFake;
  let dataDir = '';
  let operator: Operator;
  let account = { id: '', test: '', live: '' };

  const api = (key: string, method: string, pathname: string, body?: unknown) => stack.call(key, method, pathname, body);
  const setAccount = (settings: Record<string, unknown>) => operator.setAccount(account.id, settings);

  beforeAll(async () => {
    supplier = await startEsimGoFake();
    dataDir = await mkdtemp(path.join(tmpdir(), 'live-e2e-'));
    stack = await startLocalStack({ DATA_DIR: dataDir, ...liveSupplierEnv(supplier) });
    operator = await operatorOf(dataDir);
    account = await operator.createAccount('Live Co');
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
    await supplier?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('catalogue, verification, balance, order, the test/live boundary, the switch and cancel', async () => {
    const catalogue = await api(account.live, 'GET', '/v1/esim/bundles?limit=100');
    expect(catalogue.status, JSON.stringify(catalogue.body)).toBe(200);
    const bundles = catalogue.body.data as { name: string; price_cents: number; simulated: boolean; rated: boolean }[];
    expect(bundles.length).toBeGreaterThan(0);
    for (const bundle of bundles) expect(bundle).toMatchObject({ simulated: false, rated: true });
    const bundle = bundles.find((b) => b.name === 'esim_1GB_7D_GB_V2');
    if (!bundle) throw new Error('the eSIM Go fake sells esim_1GB_7D_GB_V2');

    const unverified = await api(account.live, 'POST', '/v1/esim', { bundle: bundle.name });
    expect(unverified.status).toBe(403);
    expect(unverified.body.error?.code).toBe('verification_required');

    await setAccount({ verified: true });
    const broke = await api(account.live, 'POST', '/v1/esim', { bundle: bundle.name });
    expect(broke.status).toBe(402);
    expect(broke.body.error?.code).toBe('balance_insufficient');
    expect(supplier.control.counters().purchases).toBe(0);

    const settings = await setAccount({ live_balance_cents: bundle.price_cents * 3 });
    expect(settings.settings).toMatchObject({ verified: true, live_balance_cents: bundle.price_cents * 3 });
    const order = await api(account.live, 'POST', '/v1/esim', { bundle: bundle.name, quantity: 2 });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body).toMatchObject({ object: 'order', quantity: 2, total_cents: bundle.price_cents * 2, rated: true, simulated: false });
    const [live] = order.body.esims as { id: string; iccid: string; simulated: boolean; smdp_address: string }[];
    if (!live) throw new Error('the order made no eSIM');
    expect(live.simulated).toBe(false);
    expect(supplier.control.esim(live.iccid)).toMatchObject({ iccid: live.iccid, profileStatus: 'Released' });
    expect(supplier.control.counters()).toMatchObject({ purchases: 1, esimsSold: 2 });
    const after = await setAccount({ verified: true });
    expect(after.settings).toMatchObject({ live_balance_cents: bundle.price_cents });

    // The test/live boundary, both ways.
    const sandbox = await api(account.test, 'POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU' });
    expect(sandbox.status).toBe(201);
    const [simulated] = sandbox.body.esims as { id: string }[];
    const testReadsLive = await api(account.test, 'GET', `/v1/esim/${live.id}`);
    expect(testReadsLive.status).toBe(403);
    expect(testReadsLive.body.error?.code).toBe('test_key_live_resource');
    const liveReadsTest = await api(account.live, 'GET', `/v1/esim/${simulated?.id ?? ''}`);
    expect(liveReadsTest.status).toBe(403);
    expect(liveReadsTest.body.error?.code).toBe('live_key_test_resource');

    // The operator switches live ordering off: the live catalogue and live orders are refused.
    expect((await setAccount({ live_ordering: false })).live_ordering).toBe(false);
    const offCatalogue = await api(account.live, 'GET', '/v1/esim/bundles');
    expect(offCatalogue.status).toBe(409);
    expect(offCatalogue.body.error?.code).toBe('capability_not_orderable');
    const offOrder = await api(account.live, 'POST', '/v1/esim', { bundle: bundle.name });
    expect(offOrder.status).toBe(409);
    expect(offOrder.body.error?.code).toBe('capability_not_orderable');
    // The sandbox is not affected.
    expect((await api(account.test, 'GET', '/v1/esim/bundles')).status).toBe(200);

    // Cancelling an eSIM the account has is still possible, and the supplier is told.
    const cancelled = await api(account.live, 'PATCH', `/v1/esim/${live.id}`, { state: 'expired' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.state).toBe('expired');
    const revoked = supplier.control.esim(live.iccid) as { bundles: { assignments: { bundleState: string }[] }[] };
    expect(revoked.bundles[0]?.assignments[0]?.bundleState).toBe('revoked');
    assertNoViolations(supplier);

    expect((await setAccount({ live_ordering: true })).live_ordering).toBe(true);
    expect((await api(account.live, 'GET', '/v1/esim/bundles')).status).toBe(200);
  }, 120_000);
});
