import { assertNoViolations, startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFor, newCaller, startCatalogue, systemHeaders, type CatalogueHarness } from './support.ts';

/**
 * One vendor, many accounts (record 0162): eSIM Go allows 10 calls a second, and catalogue keeps that
 * on its side. One account's flood takes at most its share of it, so another account's call is served
 * within its deadline; the calls our own limiter refuses are never counted by the circuit breaker.
 */
const BUNDLE = 'esim_1GB_7D_GB_V2';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let fake: EsimGoFake;
let h: CatalogueHarness;
beforeAll(async () => {
  fake = await startEsimGoFake();
  // A short deadline, and a breaker that opens after two failures in a row.
  h = await startCatalogue({ supplier: fake, env: { SUPPLIER_TIMEOUT_MS: '700', SUPPLIER_RETRIES: '0', SUPPLIER_BREAKER_THRESHOLD: '2' } });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});

const buy = async (caller: ReturnType<typeof newCaller>) => {
  const res = await request(h.app)
    .post('/internal/supply/orders')
    .set(headersFor(caller))
    .send({ reference: `ord_${Date.now()}${Math.random()}`.replace('.', ''), bundle: BUNDLE, quantity: 1 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.profiles as { iccid: string }[])[0]!.iccid;
};
const report = (caller: ReturnType<typeof newCaller>, iccid: string) => request(h.app).get(`/internal/supply/profiles/${iccid}`).set(headersFor(caller));

describe('the vendor’s rate budget shared by accounts', () => {
  it('serves another account’s call while one account floods, and refuses only the flood’s excess', async () => {
    const flooder = newCaller('live');
    const other = newCaller('live');
    const floodIccid = await buy(flooder);
    const mineIccid = await buy(other);
    await sleep(1_100);
    // 30 reports at once: 60 calls to a vendor that takes 10 a second.
    const flood = Promise.all(Array.from({ length: 30 }, () => report(flooder, floodIccid).then((res) => res.status)));
    await sleep(30);
    const mine = await report(other, mineIccid);
    const statuses = await flood;
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    assertNoViolations(fake);
  });

  it('never opens the breaker on its own limiter’s refusals: the vendor is asked at once after the flood', async () => {
    const flooder = newCaller('live');
    const iccid = await buy(flooder);
    await sleep(1_100);
    const statuses = await Promise.all(Array.from({ length: 30 }, () => report(flooder, iccid).then((res) => res.status)));
    // Many were refused by our limiter (throttled), each a failure the breaker would have counted.
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(2);
    await sleep(1_100);
    const callsBefore = Object.values(fake.control.counters().calls).reduce((sum, n) => sum + n, 0);
    const after = await report(flooder, iccid);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    // It reached the vendor: the circuit is closed.
    expect(Object.values(fake.control.counters().calls).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(callsBefore);
  });

  it('lets the audit’s listing wait its turn (record 0268): a page of a dozen untagged orders is read whole, not refused', async () => {
    // A dozen orders placed outside our service (no customerRef): the listing looks each one's
    // reference up, 13 calls, more than the system's share lets through within one call's 700 ms.
    const placedFrom = Math.floor(Date.now() / 1000);
    for (let placed = 0; placed < 12;) {
      const res = await fetch(`${fake.url}/orders`, {
        method: 'POST',
        headers: { 'x-api-key': fake.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'transaction', assign: true, order: [{ type: 'bundle', item: BUNDLE, quantity: 1, allowReassign: false }] }),
      });
      if (res.status === 429) await sleep(1_000);
      else {
        expect(res.status).toBe(200);
        placed += 1;
      }
    }
    await sleep(1_100);
    const res = await request(h.app)
      .get('/internal/supply/vendor-orders')
      .query({ since: placedFrom, until: Math.floor(Date.now() / 1000) })
      .set(systemHeaders());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const untagged = (res.body.orders as { reference: string | null }[]).filter((o) => o.reference === null);
    expect(untagged).toHaveLength(12);
    assertNoViolations(fake);
  });
});
