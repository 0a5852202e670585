import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAiraloFake, startEsimGoFake, type EsimGoFake } from '../src/index.ts';
import { eventually, expectFaithfulExchanges } from './support.ts';

let fake: EsimGoFake;

beforeEach(async () => {
  fake = await startEsimGoFake({ checkResponses: true, rateLimit: { limit: 1000, windowMs: 1000 } });
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
});

async function call<T = unknown>(path: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${fake.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': fake.apiKey, accept: 'application/json', ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as T };
}

const order = (type: 'transaction' | 'validate') =>
  call<{ orderReference?: string; message?: string }>('/orders', {
    method: 'POST',
    json: { type, assign: true, order: [{ type: 'bundle', quantity: 2, item: 'esim_1GB_7D_GB_V2' }] },
  });
const listed = async () => ({
  orders: (await call<unknown[]>('/orders')).body.length,
  esims: (await call<{ esims: unknown[] }>('/esims')).body.esims.length,
  purchases: fake.control.counters().purchases,
});
const balance = async () => (await call<{ balance: number }>('/organisation')).body.balance;

describe("eSIM Go fake: the documented 503 'Processing' on POST /orders", () => {
  it('answers 503 {"message":"Processing"} with Retry-After and, by default, makes the order at once', async () => {
    await fake.control.fault({ kind: 'processing', retryAfterSeconds: 7, count: 1 });
    const before = await balance();
    const processing = await order('transaction');
    expect(processing.status).toBe(503);
    expect(processing.headers.get('retry-after')).toBe('7');
    expect(processing.headers.get('content-type')).toContain('application/json');
    expect(processing.body).toEqual({ message: 'Processing' });
    expect(await listed()).toEqual({ orders: 1, esims: 2, purchases: 1 });
    expect(await balance()).toBeCloseTo(before - 3.6, 2);
    // count: 1 — the next order is answered as usual.
    expect((await order('transaction')).status).toBe(200);
    expect(await listed()).toEqual({ orders: 2, esims: 4, purchases: 2 });
  });

  it('leaves validate orders and refused orders alone, without using up its count', async () => {
    await fake.control.fault({ kind: 'processing', count: 1 });
    expect((await order('validate')).status).toBe(200);
    const refused = await call('/orders', {
      method: 'POST',
      json: { type: 'transaction', assign: true, order: [{ type: 'bundle', quantity: 1, item: 'nope' }] },
    });
    expect(refused.status).toBe(400);
    expect((await order('transaction')).status).toBe(503);
    expect((await order('transaction')).status).toBe(200);
  });

  it('makes the order completeAfterMs later: nothing to list before, then the order and its eSIMs, bought once', async () => {
    await fake.control.fault({ kind: 'processing', completeAfterMs: 600 });
    const before = await balance();
    const sent = Date.now();
    expect((await order('transaction')).status).toBe(503);
    // Clearing the fault stops new answers of it, not the order eSIM Go has already taken.
    await fake.control.clearFaults();
    expect(await listed()).toEqual({ orders: 0, esims: 0, purchases: 0 });
    expect(await balance()).toBe(before);
    await eventually(() => fake.control.counters().purchases === 1, 5000);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(590);
    expect(await listed()).toEqual({ orders: 1, esims: 2, purchases: 1 });
    expect(await balance()).toBeCloseTo(before - 3.6, 2);
  });

  it('never makes the order when completeAfterMs is negative, for every order while no count is given', async () => {
    await fake.control.fault({ kind: 'processing', completeAfterMs: -1 });
    for (let i = 0; i < 3; i++) expect((await order('transaction')).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await listed()).toEqual({ orders: 0, esims: 0, purchases: 0 });
  });

  it('is set over /_fake/faults, refuses values no test means, and is refused by the Airalo fake', async () => {
    const put = (origin: string, fault: unknown) =>
      fetch(`${origin}/_fake/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });
    expect((await put(fake.origin, { kind: 'processing', count: 0 })).status).toBe(400);
    expect((await put(fake.origin, { kind: 'processing', retryAfterSeconds: 1.5 })).status).toBe(400);
    expect((await put(fake.origin, { kind: 'processing', completeAfterMs: 'later' })).status).toBe(400);
    expect((await put(fake.origin, { kind: 'procesing' })).status).toBe(400);
    expect((await put(fake.origin, { kind: 'processing', count: 1 })).status).toBe(200);
    const answered = await order('transaction');
    expect(answered.status).toBe(503);
    expect(answered.headers.get('retry-after')).toBe('1');

    const airalo = await startAiraloFake();
    try {
      const refused = await put(airalo.origin, { kind: 'processing' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: "Airalo documents no 503 Processing answer: the 'processing' fault is eSIM Go's" });
      await expect(airalo.control.fault({ kind: 'processing' })).rejects.toThrow('eSIM Go');
    } finally {
      await airalo.close();
    }
  });
});
