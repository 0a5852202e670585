import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEsimGoFake, type EsimGoFake, type EsimGoFakeOptions } from '../src/index.ts';
import { expectFaithfulExchanges, startReceiver } from './support.ts';

let fake: EsimGoFake;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

// A generous limit here: the rate limit itself is tested in control-and-faults.test.ts.
const startFake = (options: EsimGoFakeOptions = {}) =>
  startEsimGoFake({ checkResponses: true, callbackUrl: receiver.url, rateLimit: { limit: 1000, windowMs: 1000 }, ...options });

/** A test about refunding: the account has refunds, as its account manager can arrange. */
async function withRefundsEnabled(): Promise<void> {
  await fake.close();
  fake = await startFake({ refundsEnabled: true });
}

beforeEach(async () => {
  receiver = await startReceiver();
  fake = await startFake();
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
  await receiver.close();
});

interface Bundle {
  name: string;
  duration: number;
  unlimited: boolean;
  countries: { iso: string }[];
}

async function call<T = unknown>(path: string, init: { method?: string; json?: unknown; key?: string | null; accept?: string } = {}) {
  const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
  if (init.key !== null) headers['x-api-key'] = init.key ?? fake.apiKey;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${fake.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json');
  return { status: response.status, headers: response.headers, body: (json && text ? JSON.parse(text) : text) as T };
}

async function buy(item: string, quantity: number) {
  const response = await call<{ orderReference: string; total: number; order: { esims: { iccid: string; matchingId: string; smdpAddress: string }[] }[] }>(
    '/orders',
    {
      method: 'POST',
      json: { type: 'transaction', assign: true, order: [{ type: 'bundle', quantity, item, allowReassign: false }] },
    },
  );
  expect(response.status).toBe(200);
  return response.body;
}

describe('eSIM Go fake: authentication and catalogue', () => {
  it('answers 403 {"message":"Forbidden"} without the right X-API-Key', async () => {
    expect(await call('/catalogue', { key: null })).toMatchObject({ status: 403, body: { message: 'Forbidden' } });
    expect(await call('/catalogue', { key: 'wrong' })).toMatchObject({ status: 403, body: { message: 'Forbidden' } });
  });

  it('lists bundles by country, region and group, with prices in the organisation currency', async () => {
    const all = await call<Bundle[]>('/catalogue');
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body.some((b) => b.unlimited)).toBe(true);
    expect(new Set(all.body.map((b) => b.duration)).size).toBeGreaterThan(2);
    const gb = await call<Bundle[]>('/catalogue?countries=GB');
    expect(gb.body.every((b) => b.countries.some((c) => c.iso === 'GB'))).toBe(true);
    const europe = await call<Bundle[]>('/catalogue?region=Europe');
    expect(europe.body.map((b) => b.name)).toContain('esim_10GB_30D_EUR_V2');
    const lite = await call<Bundle[]>(`/catalogue?group=${encodeURIComponent('Standard Unlimited Lite')}`);
    expect(lite.body.every((b) => b.unlimited)).toBe(true);
    const one = await call('/catalogue/bundle/esim_1GB_7D_GB_V2');
    expect(one.body).toMatchObject({ name: 'esim_1GB_7D_GB_V2', dataAmount: 1000, duration: 7, price: 1.8, billingType: 'FixedCost' });
    expect((await call('/catalogue/bundle/ESIM_1GB_7D_GB_V2')).status).toBe(400);
    expect((await call('/organisation')).body).toMatchObject({ currency: 'USD', balance: 10_000, callbackUrl: receiver.url });
  });
});

describe('eSIM Go fake: ordering and finding eSIMs', () => {
  it('validates without charging, buys 1 to 10 eSIMs with SM-DP+ address and matching id, and finds them by customerRef', async () => {
    const validate = await call('/orders', {
      method: 'POST',
      json: { type: 'validate', assign: true, order: [{ type: 'bundle', quantity: 2, item: 'esim_1GB_7D_GB_V2' }] },
    });
    expect(validate.body).toMatchObject({ valid: true, total: 3.6, currency: 'USD' });
    expect(fake.control.counters().purchases).toBe(0);

    for (const quantity of [1, 4, 10]) {
      const order = await buy('esim_1GB_7D_US_V2', quantity);
      expect(order.order[0]!.esims).toHaveLength(quantity);
      for (const esim of order.order[0]!.esims) expect(esim).toMatchObject({ iccid: expect.stringMatching(/^89\d{17}$/), smdpAddress: 'rsp.esim-go.example' });
    }
    expect(fake.control.counters()).toMatchObject({ purchases: 3, esimsSold: 15 });
    const balance = async () => (await call<{ balance: number }>('/organisation')).body.balance;
    expect(await balance()).toBeCloseTo(10_000 - 15 * 2.1, 2);

    const order = await buy('esim_1GB_7D_GB_V2', 2);
    for (const { iccid } of order.order[0]!.esims)
      expect((await call('/esims', { method: 'PUT', json: { iccid, customerRef: 'ord_42' } })).body).toEqual({ status: 'success' });
    const found = await call<{ esims: { iccid: string }[] }>('/esims?filterBy=customerRef&filter=ord_42');
    expect(found.body.esims.map((e) => e.iccid).sort()).toEqual(order.order[0]!.esims.map((e) => e.iccid).sort());
    const again = await call(`/orders/${order.orderReference}`);
    expect(again.body).toMatchObject({ orderReference: order.orderReference, status: 'completed', assigned: true });
    const listed = await call<unknown[]>('/orders?includeIccids=true&limit=50');
    expect(listed.body).toHaveLength(4);
    const assignments = await call<unknown[]>(`/esims/assignments?reference=${order.orderReference}`);
    expect(assignments.body).toHaveLength(2);
    const csv = await call<string>(`/esims/assignments?reference=${order.orderReference}`, { accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.body.split('\n')).toHaveLength(3);
  });

  it('refuses an order the prose forbids, with its {"message"} body', async () => {
    expect(await call('/orders', { method: 'POST', json: { assign: true, order: [] } })).toMatchObject({ status: 400, body: { message: expect.any(String) } });
    expect(
      (
        await call('/orders', {
          method: 'POST',
          json: { type: 'transaction', assign: true, order: [{ type: 'bundle', quantity: 1, item: 'esim_1gb_7d_gb_v2' }] },
        })
      ).status,
    ).toBe(400);
    expect(fake.control.counters().purchases).toBe(0);
  });
});

describe('eSIM Go fake: life cycle and callbacks', () => {
  it('moves profile and bundle through their states and sends signed V3 callbacks', async () => {
    const order = await buy('esim_1GB_7D_GB_V2', 2);
    const [used, lapsed] = order.order[0]!.esims.map((e) => e.iccid);
    const profile = async (iccid: string) => (await call<{ profileStatus: string }>(`/esims/${iccid}`)).body.profileStatus;
    const bundle = async (iccid: string) => (await call<{ assignments: unknown[] }>(`/esims/${iccid}/bundles/esim_1GB_7D_GB_V2`)).body.assignments[0];

    expect(await profile(used!)).toBe('Released');
    expect(await bundle(used!)).toMatchObject({ bundleState: 'queued', initialQuantity: 1_000_000_000, remainingQuantity: 1_000_000_000 });
    await fake.control.install(used!);
    expect(await profile(used!)).toBe('Installed');
    expect((await call<{ firstInstalledDateTime: unknown }>(`/esims/${used}`)).body.firstInstalledDateTime).toEqual(expect.any(Number));
    await fake.control.attach(used!);
    expect(await profile(used!)).toBe('Enabled');
    // FirstAttachment only says the eSIM joined a network: the bundle starts at its first data use.
    expect(await bundle(used!)).toMatchObject({ bundleState: 'queued' });
    await fake.control.useData(used!, 600_000_000);
    expect(await bundle(used!)).toMatchObject({ bundleState: 'active', remainingQuantity: 400_000_000 });
    await fake.control.deplete(used!);
    expect(await bundle(used!)).toMatchObject({ bundleState: 'depleted', remainingQuantity: 0 });
    await fake.control.expire(used!);
    expect(await bundle(used!)).toMatchObject({ bundleState: 'expired' });
    await fake.control.expire(lapsed!);
    expect(await bundle(lapsed!)).toMatchObject({ bundleState: 'lapsed' });
    expect((await call<{ bundles: unknown[] }>(`/esims/${used}/bundles`)).body.bundles).toEqual([]);
    expect((await call<{ bundles: { assignments: unknown[] }[] }>(`/esims/${used}/bundles?includeUsed=true`)).body.bundles[0]!.assignments).toHaveLength(1);
    const history = (await call<{ name: string }[]>(`/esims/${used}/history`)).body.map((h) => h.name);
    expect(history).toEqual(expect.arrayContaining(['Bundle Applied', 'eSIM First Attachment', 'eSIM First Use', 'eSIM Utilisation Alert', 'Bundle Expired']));

    const alerts = receiver.received.map((r) => JSON.parse(r.body) as { alertType: string });
    expect(alerts.map((a) => a.alertType)).toEqual(['FirstAttachment', 'FirstUse', 'Utilisation', 'Utilisation', 'Utilisation', 'Utilisation']);
    expect(alerts.at(-1)).toMatchObject({
      iccid: used,
      bundle: { name: 'esim_1GB_7D_GB_V2', initialQuantity: 1_000_000_000, remainingQuantity: 0, unlimited: false },
    });
    for (const r of receiver.received) {
      expect(r.headers['x-signature-sha256']).toBe(createHmac('sha256', fake.apiKey).update(r.body).digest('hex'));
    }
  });

  it('reports every documented profileStatus and bundleState when set', async () => {
    const [iccid] = (await buy('esim_1GB_7D_GB_V2', 1)).order[0]!.esims.map((e) => e.iccid);
    for (const status of ['Downloaded', 'Disabled', 'Deleted', 'Unavailable', 'Confirmed', 'Error'] as const) {
      await fake.control.setProfileStatus(iccid!, status);
      expect((await call<{ profileStatus: string }>(`/esims/${iccid}`)).body.profileStatus).toBe(status);
    }
    await fake.control.setBundleState(iccid!, 'processing');
    expect((await call<{ assignments: { bundleState: string }[] }>(`/esims/${iccid}/bundles/esim_1GB_7D_GB_V2`)).body.assignments[0]!.bundleState).toBe(
      'processing',
    );
  });

  it("signs in base64 when the account is set up that way (the document's sample)", async () => {
    await fake.close();
    fake = await startEsimGoFake({ checkResponses: true, callbackUrl: receiver.url, signatureEncoding: 'base64' });
    const [iccid] = (await buy('esim_1GB_7D_FR_V2', 1)).order[0]!.esims.map((e) => e.iccid);
    await fake.control.attach(iccid!);
    expect(receiver.received[0]!.headers['x-signature-sha256']).toBe(createHmac('sha256', fake.apiKey).update(receiver.received[0]!.body).digest('base64'));
  });

  it('revokes an unused bundle with a refund to the balance, a used one without', async () => {
    await withRefundsEnabled();
    const order = await buy('esim_1GB_7D_GB_V2', 2);
    const [unused, started] = order.order[0]!.esims.map((e) => e.iccid);
    const balance = async () => (await call<{ balance: number }>('/organisation')).body.balance;
    const before = await balance();
    const check = await call<{ status: string }>(`/esims/${unused}/bundles/esim_1GB_7D_GB_V2?type=validate&refundToBalance=true`, { method: 'DELETE' });
    expect(check.body.status).toContain('refunded to balance');
    const revoked = await call(`/esims/${unused}/bundles/esim_1GB_7D_GB_V2?type=transaction&refundToBalance=true`, { method: 'DELETE' });
    expect(revoked.body).toEqual({ status: 'Successfully Revoked Bundle, bundle has been refunded to balance' });
    expect(await balance()).toBeCloseTo(before + 1.8, 2);
    // No bundle left and never installed: the returns process takes it off the account (the revoke pages).
    expect((await call(`/esims/${unused}`)).status).toBe(403);
    // Its order still lists it: the order keeps what it made (the audit of vendor orders reads this list).
    const listed = await call<{ order: { iccids: string[]; esims: { iccid: string }[] }[] }[]>('/orders?includeIccids=true&limit=50');
    expect(listed.status).toBe(200);
    expect(listed.body.some((o) => o.order.some((line) => line.esims.some((e) => e.iccid === unused)))).toBe(true);
    await fake.control.useData(started!, 1000);
    const assignment = (await call<{ assignments: { id: string }[] }>(`/esims/${started}/bundles/esim_1GB_7D_GB_V2`)).body.assignments[0]!;
    const noRefund = await call(`/esims/${started}/bundles/esim_1GB_7D_GB_V2/assignments/${assignment.id}`, { method: 'DELETE' });
    expect(noRefund.body).toEqual({ status: 'Successfully Revoked Bundle' });
    expect((await call<{ assignments: { bundleState: string }[] }>(`/esims/${started}/bundles/esim_1GB_7D_GB_V2`)).body.assignments[0]!.bundleState).toBe(
      'revoked',
    );
  });

  it('refunds nothing until the account has refunds, then refunds once they are enabled over /_fake/refunds', async () => {
    const [unused] = (await buy('esim_1GB_7D_GB_V2', 1)).order[0]!.esims.map((e) => e.iccid);
    const balance = async () => (await call<{ balance: number }>('/organisation')).body.balance;
    const before = await balance();
    const check = await call<{ status: string }>(`/esims/${unused}/bundles/esim_1GB_7D_GB_V2?type=validate&refundToBalance=true`, { method: 'DELETE' });
    expect(check.body).toEqual({ status: 'Bundle can be revoked without a refund' });
    const revoked = await call(`/esims/${unused}/bundles/esim_1GB_7D_GB_V2?type=transaction&refundToBalance=true`, { method: 'DELETE' });
    expect(revoked.body).toEqual({ status: 'Successfully Revoked Bundle' });
    expect(await balance()).toBe(before);
    await call('/orders', {
      method: 'POST',
      json: { type: 'transaction', assign: false, order: [{ type: 'bundle', quantity: 2, item: 'esim_1GB_7D_FR_V2' }] },
    });
    const usageId = (await call<{ bundles: { available: { id: number }[] }[] }>('/inventory')).body.bundles[0]!.available[0]!.id;
    const refused = await call('/inventory/refund', { method: 'POST', json: { usageId, quantity: 1 } });
    expect(refused).toMatchObject({ status: 403, body: { message: 'Refunds are not enabled for this organisation' } });

    const enable = (enabled: unknown) =>
      fetch(`${fake.origin}/_fake/refunds`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enabled }) });
    expect((await enable('yes')).status).toBe(400);
    expect((await enable(true)).status).toBe(200);
    const refunded = await call('/inventory/refund', { method: 'POST', json: { usageId, quantity: 1 } });
    expect(refunded).toMatchObject({ status: 200, body: { status: 'Successfully refunded bundles to balance' } });
    expect(await balance()).toBeCloseTo(before - 2 * 1.6 + 1.6, 2);
    fake.control.setRefundsEnabled(false);
    expect((await call('/inventory/refund', { method: 'POST', json: { usageId, quantity: 1 } })).status).toBe(403);
  });

  it('has no suspend, resume or cancel in v2.4', async () => {
    const [iccid] = (await buy('esim_1GB_7D_GB_V2', 1)).order[0]!.esims.map((e) => e.iccid);
    expect((await call(`/esims/${iccid}/suspend`, { method: 'POST', json: {} })).status).toBe(404);
    expect((await call(`/orders/x/cancel`, { method: 'POST', json: {} })).status).toBe(404);
    expect(fake.control.violations().requests).toHaveLength(2);
    await fake.control.resetObservations();
  });

  it('buys into inventory, applies from it and refunds the rest', async () => {
    await withRefundsEnabled();
    const inventoryOrder = await call<{ assigned: boolean }>('/orders', {
      method: 'POST',
      json: { type: 'transaction', assign: false, order: [{ type: 'bundle', quantity: 3, item: 'esim_1GB_7D_DE_V2' }] },
    });
    expect(inventoryOrder.body.assigned).toBe(false);
    const stock = (await call<{ bundles: { available: { id: number }[] }[] }>('/inventory')).body.bundles[0]!;
    expect(stock).toMatchObject({ name: 'esim_1GB_7D_DE_V2', available: [{ total: 3, remaining: 3 }] });
    const applied = await call<{ esims: unknown[]; applyReference: string }>('/esims/apply', {
      method: 'POST',
      json: { name: 'esim_1GB_7D_DE_V2', repeat: 2 },
    });
    expect(applied.body.esims).toHaveLength(2);
    expect((await call<unknown[]>(`/esims/assignments?reference=${applied.body.applyReference}`)).body).toHaveLength(2);
    const refund = await call('/inventory/refund', { method: 'POST', json: { usageId: stock.available[0]!.id, quantity: 1 } });
    expect(refund.body).toEqual({ status: 'Successfully refunded bundles to balance' });
    expect((await call<{ bundles: unknown[] }>('/inventory')).body.bundles).toEqual([]);
  });
});
