import type { Esim, Order } from '@connectivity/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  eventTypesOf,
  eventually,
  LIVE_BUNDLE,
  newCaller,
  resetSupplier,
  startInventory,
  supplierBundleState,
  supplierCalls,
  type Caller,
  type Harness,
} from './support.ts';
import { failNextOrderWrite, settleAbandonedIntents } from './unrecorded-purchase.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await resetSupplier(h);
});

async function liveEsim(caller: Caller): Promise<Esim> {
  const res = await h.order(caller, { bundle: LIVE_BUNDLE });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const [esim] = (res.body as Order).esims;
  if (!esim) throw new Error('no eSIM');
  return esim;
}

interface ReleaseRow {
  order_reference: string;
  iccids: string[];
  status: string;
  attempts: number;
  reason: string;
  last_error: string | null;
}
const releasesOf = async (accountId: string) => (await h.db.knex('inventory.supplier_releases').where({ account_id: accountId })) as ReleaseRow[];
/** eSIM Go revokes a bundle with DELETE /esims/{iccid}/bundles/{name}. */
const revokeCalls = () => supplierCalls(h, 'DELETE', '/bundles/');

describe('cancelling a live eSIM', () => {
  let caller: Caller;
  beforeAll(async () => {
    caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
  });

  it('revokes the bundle at the supplier, then expires it with one esim.expired', async () => {
    const esim = await liveEsim(caller);
    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'expired', expired_reason: 'cancelled' });
    expect(supplierBundleState(h, esim.iccid)).toBe('revoked');
    expect(revokeCalls()).toBe(1);
    // Cancelling again changes nothing and asks the supplier nothing.
    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    expect(revokeCalls()).toBe(1);
    expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']);
  });

  it('answers supplier_unavailable when the supplier is down, and changes nothing', async () => {
    const esim = await liveEsim(caller);
    await h.supplier.control.fault({ kind: 'status', status: 503 });
    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('released');
    // Once the supplier is back, the same cancel goes through.
    await h.supplier.control.clearFaults();
    expect((await h.patch(caller, esim.id, 'expired')).body.state).toBe('expired');
    expect(supplierBundleState(h, esim.iccid)).toBe('revoked');
  });

  it('moves once under concurrent cancels', async () => {
    const esim = await liveEsim(caller);
    const results = await Promise.all(Array.from({ length: 4 }, () => h.patch(caller, esim.id, 'expired')));
    for (const res of results) expect(res.body.state).toBe('expired');
    expect(supplierBundleState(h, esim.iccid)).toBe('revoked');
    await eventually(async () => expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']));
  });
});

describe('suspending a live eSIM', () => {
  it('is capability_not_orderable where the vendor cannot suspend (eSIM Go v2.4), and changes nothing', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
    const esim = await liveEsim(caller);
    // In use: the bundle starts at its first data use (record 0230).
    await h.supplier.control.useData(esim.iccid, 1_000);
    await h.db.knex('inventory.esims').where({ id: esim.id }).update({ state: 'active' });
    const res = await h.patch(caller, esim.id, 'suspended');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('active');
    expect(supplierBundleState(h, esim.iccid)).toBe('active');
  });
});

describe('a live order whose transaction fails after the supplier delivered', () => {
  /** An order the vendor made whose write failed, nobody retried, and the purchase-intent worker handed to the release work. */
  async function unrecordedOrder(caller: Caller): Promise<ReleaseRow> {
    await failNextOrderWrite(h.db, caller.accountId);
    const failed = await h.order(caller, { bundle: LIVE_BUNDLE });
    expect(failed.status).toBe(500);
    expect(await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId)).toBe(1);
    const [release] = await releasesOf(caller.accountId);
    expect(release).toMatchObject({ reason: 'order_not_recorded' });
    expect(release?.iccids).toHaveLength(1);
    return release as ReleaseRow;
  }

  it('charges nothing, and its profiles are released at the supplier', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
    const release = await unrecordedOrder(caller);
    const unrecorded = release.iccids[0] ?? '';
    // Bought at the supplier, never an eSIM here; its hold given back.
    expect((await h.get(caller, `/v1/esim/${unrecorded}`)).status).toBe(404);
    expect((await h.get(caller, '/v1/balance')).body).toMatchObject({ available_cents: 10_000_000, pending_cents: 0 });
    await eventually(async () => {
      expect((await releasesOf(caller.accountId))[0]?.status).toBe('released');
      expect(supplierBundleState(h, unrecorded)).toBe('revoked');
    });
  });

  it('keeps retrying the release while the supplier is down', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
    // The release's first call waits on a slow supplier, and finds it down when its wait ends.
    await h.supplier.control.fault({ kind: 'slow', delayMs: 300 });
    const release = await unrecordedOrder(caller);
    await h.supplier.control.fault({ kind: 'status', status: 503 });
    await eventually(async () => {
      const [pending] = await releasesOf(caller.accountId);
      expect(pending?.status).toBe('pending');
      expect(pending?.attempts).toBeGreaterThanOrEqual(2);
      expect(pending?.last_error).toBeTruthy();
    });
    expect(supplierBundleState(h, release.iccids[0] ?? '')).not.toBe('revoked');

    await h.supplier.control.clearFaults();
    await eventually(async () => {
      expect((await releasesOf(caller.accountId))[0]?.status).toBe('released');
      expect(supplierBundleState(h, release.iccids[0] ?? '')).toBe('revoked');
    });
  });
});
