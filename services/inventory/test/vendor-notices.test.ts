import type { SupplierVendor } from '@connectivity/contracts';
import { airaloSignature, airaloWebhookBody, esimGoSignature, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { captureMetrics, type MetricsCapture } from '@connectivity/platform/testing';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import { eventually, operatorHeaders } from './support.ts';

/**
 * Vendor notices about our account (record 0237): Airalo's credit-limit webhook and eSIM Go's
 * LowBalance/InsufficientBalance callbacks, signed as each vendor signs them, through catalogue's callback
 * route (as the gateway's hook forwards them, record 0262) to its adapter: each moves the supplier notice
 * counter by vendor and kind, and the stated balance; no tenant ever gets an event for them.
 */
let metrics: MetricsCapture;
beforeAll(() => {
  metrics = captureMetrics();
});
afterAll(async () => {
  await metrics?.stop();
});

/** The callback as the gateway's hook hands it to catalogue: the exact bytes the vendor signs, and its headers. */
async function deliver(h: LiveHarness, payload: unknown) {
  let body: string;
  let signature: Record<string, string>;
  if (h.vendor === 'airalo') {
    body = airaloWebhookBody(payload);
    signature = { 'airalo-signature': airaloSignature(body, (h.fake as AiraloFake).credentials.clientSecret) };
  } else {
    body = JSON.stringify(payload);
    signature = { 'x-signature-sha256': esimGoSignature(body, (h.fake as EsimGoFake).apiKey, 'hex') };
  }
  return request(h.catalogueApp)
    .post(`/internal/supplier-callbacks/${h.vendor}`)
    .set(operatorHeaders())
    .send({ body_base64: Buffer.from(body).toString('base64'), headers: { 'content-type': 'application/json', ...signature } });
}

const notices = (vendor: SupplierVendor, kind: string) => metrics.value('connectivity.supplier.notices_total', { vendor, kind });
const statedBalance = (vendor: SupplierVendor) => metrics.value('connectivity.supplier.stated_balance', { vendor });

/** A tenant with a live eSIM bought (its id): the notices below must tell it nothing. */
async function tenantWithEsim(h: LiveHarness): Promise<string> {
  const order = await h.buy(await h.account(), 1);
  return order.esims[0]!.id;
}

/** No event reaches the bus for a while after a notice (the outbox relay polls every 50 ms here). */
async function noEventsAfter(h: LiveHarness, before: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(h.events.slice(before)).toEqual([]);
}

describe('Airalo’s credit-limit notice', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('airalo');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is a metric (counted, its remaining credit the stated balance) and no tenant event', async () => {
    const esim = await tenantWithEsim(h);
    await eventually(() => expect(h.eventsOf(esim)).toEqual(['esim.released']), 10_000);
    const before = h.events.length;
    // The series starts at 0 once the adapter is configured, so an alert on its increase sees the first notice.
    expect(await notices('airalo', 'credit_limit')).toBe(0);

    const answer = await deliver(h, { message: 'Surpassed 80% of the credit limit balance', remaining: 225.35 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ received: 0, stored: 0 });
    expect(await notices('airalo', 'credit_limit')).toBe(1);
    expect(await statedBalance('airalo')).toBe(225.35);

    expect((await deliver(h, { message: 'Surpassed 90% of the credit limit balance', remaining: 112.5 })).status).toBe(200);
    expect(await notices('airalo', 'credit_limit')).toBe(2);
    expect(await statedBalance('airalo')).toBe(112.5);
    await noEventsAfter(h, before);
  });

  it('unsigned, is refused and counts nothing', async () => {
    const counted = (await notices('airalo', 'credit_limit')) ?? 0;
    const forged = await request(h.catalogueApp)
      .post('/internal/supplier-callbacks/airalo')
      .set(operatorHeaders())
      .send({ body_base64: Buffer.from(JSON.stringify({ message: 'x', remaining: 1 })).toString('base64'), headers: { 'airalo-signature': 'ab'.repeat(64) } });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ code: 'signature_invalid' });
    expect((await notices('airalo', 'credit_limit')) ?? 0).toBe(counted);
  });
});

describe('eSIM Go’s balance notifications', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('LowBalance and InsufficientBalance are metrics by kind, with the balance stated, and no tenant event', async () => {
    const esim = await tenantWithEsim(h);
    await eventually(() => expect(h.eventsOf(esim)).toEqual(['esim.released']), 10_000);
    const before = h.events.length;
    expect(await notices('esim-go', 'low_balance')).toBe(0);

    const low = await deliver(h, { alertType: 'LowBalance', balanceInfo: { balance: 1299.3, threshold: 2600, thresholdPercentRemaining: 49.973 } });
    expect(low.status, JSON.stringify(low.body)).toBe(200);
    expect(low.body).toEqual({ received: 0, stored: 0 });
    expect(await notices('esim-go', 'low_balance')).toBe(1);
    expect(await statedBalance('esim-go')).toBe(1299.3);

    const insufficient = await deliver(h, {
      alertType: 'InsufficientBalance',
      balanceInfo: { balance: 0.4, threshold: 2600, thresholdPercentRemaining: 0.01 },
    });
    expect(insufficient.status).toBe(200);
    expect(await notices('esim-go', 'insufficient_balance')).toBe(1);
    expect(await notices('esim-go', 'low_balance')).toBe(1);
    expect(await statedBalance('esim-go')).toBe(0.4);
    await noEventsAfter(h, before);
  });
});
