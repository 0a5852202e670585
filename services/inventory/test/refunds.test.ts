import { SUPPLIER_VENDORS, type Order, type Refund } from '@connectivity/contracts';
import { assertNoViolations, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { createLogger, newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogueClient } from '../src/clients/catalogue-client.ts';
import { startRefundWorker } from '../src/workers/refund-worker.ts';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import {
  buyEsim,
  eventually,
  headersFor,
  INTERNAL_TOKEN,
  newCaller,
  operatorHeaders,
  otherEnvironment,
  startInventory,
  type Caller,
  type Harness,
} from './support.ts';

/**
 * Refunds of cancelled unused eSIMs (record 0158): credited when the vendor has refunded us — eSIM Go
 * at once (where refunds are enabled for the account), Airalo after its review — and never when it
 * refuses; the sandbox's, settled by its simulated supplier or a test helper.
 */
const logger = createLogger({ name: 'refunds-test', level: 'silent' });

async function lookAtPendingRefunds(h: LiveHarness): Promise<void> {
  await h.db
    .knex('inventory.refunds')
    .where({ status: 'pending' })
    .update({ next_check_at: Date.now() - 1 });
  const catalogue = createCatalogueClient({ baseUrl: h.catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 5_000, logger });
  const worker = startRefundWorker({ knex: h.db.knex, catalogue, logger, intervalMs: 3_600_000, checkEveryMs: 60_000 });
  try {
    await worker.runOnce();
  } finally {
    await worker.stop();
  }
}

const refundEvents = (h: { events: { type: string; data: unknown }[] }, refundId: string) =>
  h.events.filter((e) => e.type.startsWith('refund.') && (e.data as { object: { id: string } }).object.id === refundId).map((e) => e.type);

describe.each(SUPPLIER_VENDORS)('cancelling an unused live eSIM at %s', (vendor) => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory(vendor, {}, { fake: vendor === 'esim-go' ? { refundsEnabled: true } : {} });
  });
  afterAll(async () => {
    await h?.close();
  });
  // Every request our adapter sent matched the vendor's published document.
  afterEach(() => assertNoViolations(h.fake));

  const get = (caller: Caller, path: string) => request(h.app).get(path).set(headersFor(caller));
  const cancel = async (caller: Caller, esimId: string) => {
    const res = await request(h.app)
      .patch(`/v1/esim/${esimId}`)
      .set(headersFor(caller))
      .set('Idempotency-Key', `idem-${newId('request')}`)
      .send({ state: 'expired' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ state: 'expired', expired_reason: 'cancelled' });
  };
  const refundOf = async (caller: Caller, esimId: string) => {
    const list = await get(caller, `/v1/refunds?esim=${esimId}`);
    expect(list.status).toBe(200);
    return (list.body.data as Refund[])[0];
  };
  const available = async (caller: Caller) => (await get(caller, '/v1/balance')).body.available_cents as number;

  it('refunds it and credits the balance when the vendor has refunded us', async () => {
    const caller = await h.account();
    const order: Order = await h.buy(caller, 1);
    const esim = order.esims[0]!;
    const before = await available(caller);
    await cancel(caller, esim.id);
    let refund = (await refundOf(caller, esim.id))!;
    expect(refund).toMatchObject({
      object: 'refund',
      esim: esim.id,
      order: order.id,
      amount_cents: order.price_cents,
      currency: 'USD',
      reason: 'esim_cancelled',
    });
    if (vendor === 'airalo') {
      // Reviewed by hand at Airalo: pending, nothing credited, until it approves.
      expect(refund).toMatchObject({ status: 'pending', failure_reason: null });
      await lookAtPendingRefunds(h);
      expect((await get(caller, `/v1/refunds/${refund.id}`)).body.status).toBe('pending');
      expect(await available(caller)).toBe(before);
      const control = (h.fake as AiraloFake).control;
      for (const pending of control.refunds().filter((r) => r.status === 'pending')) await control.approveRefund(pending.refund_id);
      await lookAtPendingRefunds(h);
      refund = (await get(caller, `/v1/refunds/${refund.id}`)).body as Refund;
    }
    expect(refund).toMatchObject({ status: 'succeeded', failure_reason: null });
    expect(await available(caller)).toBe(before + order.price_cents);
    const transactions = (await get(caller, `/v1/balance_transactions?source=${refund.id}`)).body.data as { type: string; amount_cents: number }[];
    expect(transactions).toMatchObject([{ type: 'refund', amount_cents: order.price_cents }]);
    await eventually(() => expect(refundEvents(h, refund.id)).toEqual(['refund.created', 'refund.succeeded']));
    // Cancelling again refunds nothing more.
    await cancel(caller, esim.id);
    expect((await get(caller, `/v1/refunds?esim=${esim.id}`)).body.data).toHaveLength(1);
    expect(await available(caller)).toBe(before + order.price_cents);
  });

  it('says why and credits nothing when the vendor does not refund (eSIM Go: refunds off; Airalo: rejected on review)', async () => {
    const caller = await h.account();
    const order: Order = await h.buy(caller, 1);
    const esim = order.esims[0]!;
    const before = await available(caller);
    if (vendor === 'esim-go') (h.fake as EsimGoFake).control.setRefundsEnabled(false);
    try {
      await cancel(caller, esim.id);
    } finally {
      if (vendor === 'esim-go') (h.fake as EsimGoFake).control.setRefundsEnabled(true);
    }
    let refund = (await refundOf(caller, esim.id))!;
    if (vendor === 'airalo') {
      const control = (h.fake as AiraloFake).control;
      for (const pending of control.refunds().filter((r) => r.status === 'pending')) await control.rejectRefund(pending.refund_id);
      // Airalo's rejection has no API: the refund stays pending until the operator records Airalo's notice.
      await lookAtPendingRefunds(h);
      expect((await get(caller, `/v1/refunds/${refund.id}`)).body.status).toBe('pending');
      const settled = await request(h.app).post(`/internal/refunds/${refund.id}/settle`).set(operatorHeaders()).send({ status: 'failed' });
      expect(settled.status, JSON.stringify(settled.body)).toBe(200);
      refund = settled.body as Refund;
      expect(refund.failure_reason).toBe('supplier_rejected');
      // A settled refund does not change.
      const again = await request(h.app).post(`/internal/refunds/${refund.id}/settle`).set(operatorHeaders()).send({ status: 'succeeded' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('invalid_state_transition');
    } else {
      expect(refund.failure_reason).toBe('supplier_not_refundable');
    }
    expect(refund.status).toBe('failed');
    expect(await available(caller)).toBe(before);
    expect((await get(caller, `/v1/esim/${esim.id}`)).body).toMatchObject({ state: 'expired', expired_reason: 'cancelled' });
    await eventually(() => expect(refundEvents(h, refund.id)).toEqual(['refund.created', 'refund.failed']));
  });

  it('shows a refund to its account and environment only', async () => {
    const caller = await h.account();
    const esim = (await h.buy(caller, 1)).esims[0]!;
    await cancel(caller, esim.id);
    const refund = (await refundOf(caller, esim.id))!;
    expect((await get(newCaller('live'), `/v1/refunds/${refund.id}`)).status).toBe(404);
    const crossed = await get(otherEnvironment(caller), `/v1/refunds/${refund.id}`);
    expect(crossed.status).toBe(403);
    expect(crossed.body.error.code).toBe('test_key_live_resource');
    expect((await get(caller, `/v1/refunds/${newId('refund')}`)).status).toBe(404);
    expect((await get(caller, '/v1/refunds?status=lost')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'status' });
  });
});

describe('sandbox refunds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startInventory();
  });
  afterAll(async () => {
    await h?.close();
  });
  const settle = (caller: Caller, id: string, status: string) =>
    request(h.app)
      .post(`/v1/test/refunds/${id}/settle`)
      .set(headersFor(caller))
      .set('Idempotency-Key', `idem-${newId('request')}`)
      .send({ status });

  it('opens one for a cancelled unused eSIM, settled either way by the test helper, crediting a simulated balance', async () => {
    const caller = newCaller('test');
    await request(h.app)
      .post('/v1/test/balance')
      .set(headersFor(caller))
      .set('Idempotency-Key', `idem-${newId('request')}`)
      .send({ available_cents: 100_000 });
    const [first, second] = await Promise.all([buyEsim(h, caller), buyEsim(h, caller)]);
    for (const esim of [first, second]) expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    const refunds = (await h.get(caller, '/v1/refunds')).body.data as Refund[];
    expect(refunds.map((r) => r.status)).toEqual(['pending', 'pending']);
    const before = (await h.get(caller, '/v1/balance')).body.available_cents as number;

    const succeeded = await settle(caller, refunds.find((r) => r.esim === first.id)!.id, 'succeeded');
    expect(succeeded.status, JSON.stringify(succeeded.body)).toBe(200);
    expect(succeeded.body).toMatchObject({ status: 'succeeded', failure_reason: null });
    const failed = await settle(caller, refunds.find((r) => r.esim === second.id)!.id, 'failed');
    expect(failed.body).toMatchObject({ status: 'failed', failure_reason: 'supplier_rejected' });
    expect((await h.get(caller, '/v1/balance')).body.available_cents).toBe(before + (succeeded.body as Refund).amount_cents);
    expect((await settle(caller, (failed.body as Refund).id, 'succeeded')).status).toBe(409);
    await eventually(() => {
      const types = h.events
        .filter((e) => e.type.startsWith('refund.') && e.account_id === caller.accountId)
        .map((e) => e.type)
        .sort();
      expect(types).toEqual(['refund.created', 'refund.created', 'refund.failed', 'refund.succeeded']);
    });
  });

  it('opens none for an eSIM that was used, and refuses the helper to a live key and to another account', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    for (const state of ['installed', 'active', 'expired']) expect((await h.patch(caller, esim.id, state)).status).toBe(200);
    expect((await h.get(caller, '/v1/refunds')).body.data).toEqual([]);
    const unused = await buyEsim(h, caller);
    await h.patch(caller, unused.id, 'expired');
    const [refund] = (await h.get(caller, '/v1/refunds')).body.data as Refund[];
    expect((await settle(newCaller('test'), refund!.id, 'succeeded')).status).toBe(404);
    expect((await settle({ ...caller, environment: 'live' }, refund!.id, 'succeeded')).status).toBe(403);
    expect((await settle(caller, refund!.id, 'maybe')).body.error).toMatchObject({ code: 'invalid_parameter', param: 'status' });
  });
});
