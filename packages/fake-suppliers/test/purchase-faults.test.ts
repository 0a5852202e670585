import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '../src/index.ts';
import { airaloClient, type Listed } from './airalo-client.ts';
import { eventually, expectFaithfulExchanges, startReceiver } from './support.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The vendor takes this long before it does anything with a request. */
const DELAY_MS = 800;
/** The client gives up well before that. */
const CLIENT_TIMEOUT_MS = 200;

async function airalo() {
  const fake: AiraloFake = await startAiraloFake({ checkResponses: true, checkWebhookOnOptIn: false });
  cleanups.push(() => fake.close());
  const client = airaloClient(() => fake);
  return { fake, ...client, accessToken: await client.token() };
}

async function esimGo() {
  const fake: EsimGoFake = await startEsimGoFake({ checkResponses: true, rateLimit: { limit: 1000, windowMs: 1000 } });
  cleanups.push(() => fake.close());
  const call = async <T>(path: string, init: { method?: string; json?: unknown; signal?: AbortSignal } = {}) => {
    const response = await fetch(`${fake.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'x-api-key': fake.apiKey, accept: 'application/json', ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      signal: init.signal,
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as T };
  };
  const transaction = { type: 'transaction', assign: true, order: [{ type: 'bundle', quantity: 2, item: 'esim_1GB_7D_GB_V2' }] };
  return { fake, call, transaction };
}

describe('slow: the vendor makes a purchase only after delayMs, whether or not the caller still waits', () => {
  it('Airalo POST /v2/orders: nothing to find before, the order once made, bought once', async () => {
    const { fake, call, accessToken, balance } = await airalo();
    const before = await balance(accessToken);
    await fake.control.fault({ kind: 'slow', delayMs: DELAY_MS });
    const sent = Date.now();
    const placing = call('/orders', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'change-7days-1gb', quantity: 1, description: 'ord_slow' },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    await expect(placing).rejects.toThrow();
    await fake.control.clearFaults();
    const find = async () => (await call<Listed<{ id: number }>>('/orders?filter[description]=ord_slow', { token: accessToken })).body.data;
    expect(await find()).toEqual([]);
    expect((await call<Listed<unknown>>('/sims', { token: accessToken })).body.data).toEqual([]);
    expect(fake.control.counters().purchases).toBe(0);

    await eventually(() => fake.control.counters().purchases === 1, 5000);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(DELAY_MS - 10);
    expect(await find()).toHaveLength(1);
    expect(await balance(accessToken)).toBeCloseTo(before - 1.8, 2);
    expect(fake.control.counters()).toMatchObject({ purchases: 1, esimsSold: 1 });
    expectFaithfulExchanges(fake.control);
  });

  it('Airalo POST /v2/orders-async: the order is made, and its webhook sent, only after delayMs', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const { fake, call, accessToken } = await airalo();
    await fake.control.fault({ kind: 'slow', delayMs: DELAY_MS });
    const sent = Date.now();
    const accepting = call('/orders-async', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'change-7days-1gb', quantity: 1, description: 'ord_async_slow', webhook_url: receiver.url },
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    await expect(accepting).rejects.toThrow();
    await fake.control.clearFaults();
    const find = async () => (await call<Listed<{ id: number }>>('/orders?filter[description]=ord_async_slow', { token: accessToken })).body.data;
    expect(await find()).toEqual([]);
    expect(fake.control.counters().purchases).toBe(0);
    expect(receiver.received).toEqual([]);

    await eventually(() => receiver.received.length === 1, 5000);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(DELAY_MS - 10);
    expect(await find()).toHaveLength(1);
    expect(fake.control.counters()).toMatchObject({ purchases: 1, esimsSold: 1 });
    expectFaithfulExchanges(fake.control);
  });

  it('eSIM Go POST /orders: no order and no eSIMs to list before, both once made, bought once', async () => {
    const { fake, call, transaction } = await esimGo();
    const balance = async () => (await call<{ balance: number }>('/organisation')).body.balance;
    const before = await balance();
    await fake.control.fault({ kind: 'slow', delayMs: DELAY_MS });
    const sent = Date.now();
    await expect(call('/orders', { method: 'POST', json: transaction, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) })).rejects.toThrow();
    await fake.control.clearFaults();
    expect((await call<unknown[]>('/orders')).body).toEqual([]);
    expect((await call<{ esims: unknown[] }>('/esims')).body.esims).toEqual([]);
    expect(fake.control.counters().purchases).toBe(0);

    await eventually(() => fake.control.counters().purchases === 1, 5000);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(DELAY_MS - 10);
    expect((await call<unknown[]>('/orders')).body).toHaveLength(1);
    expect((await call<{ esims: unknown[] }>('/esims')).body.esims).toHaveLength(2);
    expect(await balance()).toBeCloseTo(before - 2 * 1.8, 2);
    expect(fake.control.counters()).toMatchObject({ purchases: 1, esimsSold: 2 });
    expectFaithfulExchanges(fake.control);
  });

  it('answers a caller that waits after delayMs, with the purchase it made then', async () => {
    const { fake, call, transaction } = await esimGo();
    await fake.control.fault({ kind: 'slow', delayMs: DELAY_MS });
    const sent = Date.now();
    const bought = await call<{ orderReference: string }>('/orders', { method: 'POST', json: transaction });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(DELAY_MS - 10);
    expect(bought.status).toBe(200);
    expect((await call(`/orders/${bought.body.orderReference}`)).status).toBe(200);
    expect(fake.control.counters().purchases).toBe(1);
  });

  it('does nothing more once closed: a slowed purchase not yet made is dropped with the fake', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-slow-'));
    const fake = await startEsimGoFake({ stateFile: join(dir, 'state.json') });
    await fake.control.fault({ kind: 'slow', delayMs: 300 });
    const transaction = { type: 'transaction', assign: true, order: [{ type: 'bundle', quantity: 1, item: 'esim_1GB_7D_GB_V2' }] };
    const placing = fetch(`${fake.url}/orders`, {
      method: 'POST',
      headers: { 'x-api-key': fake.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(transaction),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await fake.close();
    await expect(placing).rejects.toThrow();
    rmSync(dir, { recursive: true, force: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // A purchase made after the close would have written the state file (and its folder) again.
    expect(existsSync(dir)).toBe(false);
    expect(fake.control.counters().purchases).toBe(0);
  });
});
