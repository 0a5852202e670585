import type { Esim, Order } from '@connectivity/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventTypesOf, eventually, newCaller, startInventory, type Caller, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  h.supplier.reset();
});

async function liveEsim(caller: Caller): Promise<Esim> {
  const res = await h.order(caller, { bundle: 'esim_1GB_7D_GB' });
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

describe('cancelling a live eSIM', () => {
  let caller: Caller;
  beforeAll(async () => {
    caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
  });

  it('terminates the profile at the supplier, then expires it with one esim.expired', async () => {
    const esim = await liveEsim(caller);
    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'expired', expired_reason: 'cancelled' });
    expect(h.supplier.state.profiles.get(esim.iccid)?.status).toBe('terminated');
    expect(h.supplier.state.requests.get('POST /v1/profiles/:iccid/terminate')).toBe(1);
    // Cancelling again changes nothing and asks the supplier nothing.
    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    expect(h.supplier.state.requests.get('POST /v1/profiles/:iccid/terminate')).toBe(1);
    expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']);
  });

  it('answers capability_not_orderable when the supplier cannot cancel, and changes nothing', async () => {
    const esim = await liveEsim(caller);
    h.supplier.state.faults.profiles = 'unsupported';
    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('released');
    expect(h.supplier.state.profiles.get(esim.iccid)?.status).toBe('active');
  });

  it('answers supplier_unavailable when the supplier is down, and changes nothing', async () => {
    const esim = await liveEsim(caller);
    h.supplier.state.faults.profiles = 'down';
    const res = await h.patch(caller, esim.id, 'expired');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'supplier', code: 'supplier_unavailable' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('released');
    // Once the supplier is back, the same cancel goes through.
    h.supplier.state.faults.profiles = 'ok';
    expect((await h.patch(caller, esim.id, 'expired')).body.state).toBe('expired');
    expect(h.supplier.state.profiles.get(esim.iccid)?.status).toBe('terminated');
  });

  it('moves once under concurrent cancels, each of which the supplier takes', async () => {
    const esim = await liveEsim(caller);
    const results = await Promise.all(Array.from({ length: 4 }, () => h.patch(caller, esim.id, 'expired')));
    for (const res of results) expect(res.body.state).toBe('expired');
    expect(h.supplier.state.profiles.get(esim.iccid)?.status).toBe('terminated');
    await eventually(async () => expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']));
  });

  it('cannot resume a profile the supplier terminated', async () => {
    const esim = await liveEsim(caller);
    await h.usage(caller, esim.id, 1);
    expect((await h.patch(caller, esim.id, 'suspended')).status).toBe(200);
    expect((await h.patch(caller, esim.id, 'expired')).status).toBe(200);
    expect((await h.patch(caller, esim.id, 'active')).body.error.code).toBe('invalid_state_transition');
  });
});

describe('a live order whose transaction fails after the supplier delivered', () => {
  it('is refused, charges nothing, and its profiles are released at the supplier', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
    const price = ((await h.order(caller, { bundle: 'esim_1GB_7D_GB' })).body as Order).price_cents;
    // Room for one order; two pass the check before the supplier call, so the one that takes
    // the row lock second finds the balance spent, after its profiles were bought.
    await h.fund(caller.accountId, { live_balance_cents: price });
    h.supplier.state.faults.latencyMs = 300;
    const results = await Promise.all([h.order(caller, { bundle: 'esim_1GB_7D_GB' }), h.order(caller, { bundle: 'esim_1GB_7D_GB' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 402]);
    const refused = results.find((r) => r.status === 402);
    expect(refused?.body.error.code).toBe('balance_insufficient');
    h.supplier.state.faults.latencyMs = 0;

    const recorded = (results.find((r) => r.status === 201)?.body as Order).esims[0];
    const [release] = await releasesOf(caller.accountId);
    expect(release).toMatchObject({ reason: 'balance_insufficient' });
    expect(release?.iccids).toHaveLength(1);
    const unrecorded = release?.iccids[0] ?? '';
    expect(unrecorded).not.toBe(recorded?.iccid);
    // Bought at the supplier, never an eSIM here.
    expect((await h.get(caller, `/v1/esim/${unrecorded}`)).status).toBe(404);
    await eventually(async () => {
      expect((await releasesOf(caller.accountId))[0]?.status).toBe('released');
      expect(h.supplier.state.profiles.get(unrecorded)?.status).toBe('terminated');
    });
    expect(h.supplier.state.profiles.get(recorded?.iccid ?? '')?.status).toBe('active');
  });

  it('keeps retrying the release while the supplier is down', async () => {
    const caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
    const price = ((await h.order(caller, { bundle: 'esim_1GB_7D_GB' })).body as Order).price_cents;
    await h.fund(caller.accountId, { live_balance_cents: price });
    h.supplier.state.faults.latencyMs = 300;
    h.supplier.state.faults.profiles = 'down';
    const results = await Promise.all([h.order(caller, { bundle: 'esim_1GB_7D_GB' }), h.order(caller, { bundle: 'esim_1GB_7D_GB' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 402]);
    h.supplier.state.faults.latencyMs = 0;

    await eventually(async () => {
      const [release] = await releasesOf(caller.accountId);
      expect(release?.status).toBe('pending');
      expect(release?.attempts).toBeGreaterThanOrEqual(2);
      expect(release?.last_error).toBeTruthy();
    });
    const [pending] = await releasesOf(caller.accountId);
    expect(h.supplier.state.profiles.get(pending?.iccids[0] ?? '')?.status).toBe('active');

    h.supplier.state.faults.profiles = 'ok';
    await eventually(async () => {
      expect((await releasesOf(caller.accountId))[0]?.status).toBe('released');
      expect(h.supplier.state.profiles.get(pending?.iccids[0] ?? '')?.status).toBe('terminated');
    });
  });
});
