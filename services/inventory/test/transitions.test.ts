import { ESIM_STATES, type Esim, type EsimState } from '@connectivity/contracts';
import { NO_CLAIM } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { updateEsim } from '../src/use-cases/update-esim.ts';
import {
  buyEsim,
  type Caller,
  eventTypesOf,
  eventually,
  type Harness,
  headersFor,
  newCaller,
  resetSupplier,
  startInventory,
  supplierBundleState,
} from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});
afterEach(async () => {
  await resetSupplier(h);
});

const EVENT_OF: Record<EsimState, string> = {
  released: 'esim.released',
  installed: 'esim.installed',
  active: 'esim.activated',
  suspended: 'esim.suspended',
  expired: 'esim.expired',
};

const ALLOWED: Record<EsimState, EsimState[]> = {
  released: ['installed', 'expired'],
  installed: ['active', 'expired'],
  active: ['suspended', 'expired'],
  suspended: ['active', 'expired'],
  expired: [],
};

// The test-key path from `released` to each state.
const PATH: Record<EsimState, EsimState[]> = {
  released: [],
  installed: ['installed'],
  active: ['installed', 'active'],
  suspended: ['installed', 'active', 'suspended'],
  expired: ['expired'],
};

/** A test eSIM brought to `state` with test-key PATCHes; its events are all published. */
async function esimIn(caller: Caller, state: EsimState): Promise<Esim> {
  const esim = await buyEsim(h, caller);
  for (const step of PATH[state]) expect((await h.patch(caller, esim.id, step)).status).toBe(200);
  await eventTypesOf(h, esim.id, 1 + PATH[state].length);
  return (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
}

/** A live eSIM, bought through the fake supplier. */
async function liveEsim(caller: Caller): Promise<Esim> {
  return buyEsim(h, caller);
}

describe('PATCH /v1/esim/{id} with a test key', () => {
  const caller = newCaller('test');

  for (const from of ESIM_STATES) {
    for (const to of ESIM_STATES) {
      if (from === to) continue;
      const allowed = ALLOWED[from].includes(to);
      it(`${from} -> ${to}: ${allowed ? 'moves and emits ' + EVENT_OF[to] : '409 invalid_state_transition'}`, async () => {
        const esim = await esimIn(caller, from);
        const before = h.eventsOf(esim.id).length;
        const res = await h.patch(caller, esim.id, to);
        if (allowed) {
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ id: esim.id, state: to });
          expect(res.body.updated_at).toBeGreaterThanOrEqual(esim.updated_at);
          const types = await eventTypesOf(h, esim.id, before + 1);
          expect(types.slice(before)).toEqual([EVENT_OF[to]]);
          const event = h.eventsOf(esim.id).at(-1);
          expect(event?.data).toEqual({ object: res.body, previous_state: from });
        } else {
          expect(res.status).toBe(409);
          expect(res.body.error).toMatchObject({ type: 'conflict', code: 'invalid_state_transition' });
          expect(res.body.error.message).toContain(from);
          expect(res.body.error.detail).toContain(`current state: ${from}`);
          for (const target of ALLOWED[from]) expect(res.body.error.detail).toContain(target);
          expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe(from);
        }
      });
    }
  }

  it('accepts a PATCH to the current state and emits nothing', async () => {
    for (const state of ESIM_STATES) {
      const esim = await esimIn(caller, state);
      const before = h.eventsOf(esim.id).length;
      const res = await h.patch(caller, esim.iccid, state);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(esim);
      // The outbox publishes in commit order: once a later event is on the bus, a stray one
      // from this PATCH would be there too.
      await eventTypesOf(h, (await buyEsim(h, caller)).id, 1);
      expect(h.eventsOf(esim.id)).toHaveLength(before);
    }
  });

  it.each([
    [{}, 'missing_parameter', 'state'],
    [{ state: 'lost' }, 'invalid_parameter', 'state'],
    [{ state: 3 }, 'invalid_parameter', 'state'],
    [{ state: 'expired', note: 'x' }, 'invalid_parameter', 'note'],
  ])('refuses the body %o with %s', async (body, code, param) => {
    const esim = await buyEsim(h, caller);
    const res = await request(h.app).patch(`/v1/esim/${esim.id}`).set(headersFor(caller)).set('Idempotency-Key', `idem-${esim.id}`).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param });
  });

  it('answers 404 for an unknown eSIM and needs an Idempotency-Key', async () => {
    const res = await h.patch(caller, 'esim_00000000000000000000000000', 'expired');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
    const esim = await buyEsim(h, caller);
    const noKey = await request(h.app).patch(`/v1/esim/${esim.id}`).set(headersFor(caller)).send({ state: 'expired' });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe('idempotency_key_required');
  });
});

describe('PATCH /v1/esim/{id} with a live key', () => {
  let caller: Caller;
  beforeAll(async () => {
    caller = newCaller('live');
    await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
  });

  it('refuses the device’s moves, saying the device makes them', async () => {
    const esim = await liveEsim(caller);
    const res = await h.patch(caller, esim.id, 'installed');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state_transition');
    expect(res.body.error.message).toMatch(/device/);
    expect(res.body.error.detail).toContain('allowed targets: expired');
    expect((await h.patch(caller, esim.id, 'active')).status).toBe(409);
    expect((await h.patch(caller, esim.id, 'suspended')).status).toBe(409);
  });

  it('cancels at the supplier after the device moved it (a supplier report), with each event once', async () => {
    const esim = await liveEsim(caller);
    // The network activates a live eSIM; usage stands in for the supplier's report here.
    expect((await h.usage(caller, esim.id, 1_000)).body.state).toBe('active');
    expect((await h.patch(caller, esim.id, 'expired')).body.state).toBe('expired');
    expect(supplierBundleState(h, esim.iccid)).toBe('revoked');
    const types = await eventTypesOf(h, esim.id, 4);
    expect(types).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.expired']);
    for (const event of h.eventsOf(esim.id)) expect(event.environment).toBe('live');
  });

  it('cancels a released or installed eSIM', async () => {
    const esim = await liveEsim(caller);
    expect((await h.patch(caller, esim.id, 'expired')).body.state).toBe('expired');
    expect((await h.patch(caller, esim.id, 'active')).status).toBe(409);
  });

  it('answers capability_not_orderable where the vendor cannot suspend or resume (eSIM Go v2.4), and changes nothing', async () => {
    const esim = await liveEsim(caller);
    await h.usage(caller, esim.id, 1);
    const res = await h.patch(caller, esim.id, 'suspended');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'capability', code: 'capability_not_orderable' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('active');
  });
});

describe('concurrent PATCHes of one eSIM', () => {
  it('move it once and emit exactly one event', async () => {
    const caller = newCaller('test');
    const esim = await esimIn(caller, 'active');
    const results = await Promise.all(Array.from({ length: 8 }, () => h.patch(caller, esim.id, 'suspended')));
    for (const res of results) {
      expect(res.status).toBe(200);
      expect(res.body.state).toBe('suspended');
    }
    const mixed = await Promise.all([
      ...Array.from({ length: 4 }, () => h.patch(caller, esim.id, 'expired')),
      ...Array.from({ length: 4 }, () => h.patch(caller, esim.id, 'active')),
    ]);
    const final = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    // Either order can win; whatever happened, each state change emitted exactly one event.
    expect(mixed.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const marker = await buyEsim(h, caller);
    await eventTypesOf(h, marker.id, 1);
    await eventually(() => {
      const types = h.eventsOf(esim.id).map((e) => e.type);
      expect(types.slice(0, 4)).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.suspended']);
      expect(types.filter((t) => t === 'esim.suspended')).toHaveLength(1);
      expect(types.filter((t) => t === 'esim.expired')).toHaveLength(1);
      expect(types.at(-1)).toBe('esim.expired');
      expect(final.state).toBe('expired');
    });
  });
});

describe('events on the bus', () => {
  it('carry every state change once, in order, per eSIM', async () => {
    const caller = newCaller('test');
    const esims = await Promise.all(Array.from({ length: 4 }, () => buyEsim(h, caller)));
    await Promise.all(
      esims.map(async (esim) => {
        for (const state of ['installed', 'active', 'suspended', 'active', 'expired']) {
          expect((await h.patch(caller, esim.id, state)).status).toBe(200);
        }
      }),
    );
    for (const esim of esims) {
      const types = await eventTypesOf(h, esim.id, 6);
      expect(types).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.suspended', 'esim.activated', 'esim.expired']);
      const events = h.eventsOf(esim.id);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      const previous = events.map((e) => (e.data as { previous_state: string | null }).previous_state);
      expect(previous).toEqual([null, 'released', 'installed', 'active', 'suspended', 'active']);
    }
  });
});

describe('an eSIM past its validity that the sweeper has not reached', () => {
  const caller = newCaller('test');
  const eightDaysOn = () => new Date(Date.now() + 8 * 86_400_000);
  const unusedCatalogue = {
    getBundle: () => Promise.reject(new Error('not used')),
    orderProfiles: () => Promise.reject(new Error('not used')),
    purchase: () => Promise.reject(new Error('not used')),
    profileAction: () => Promise.reject(new Error('not used')),
    terminate: () => Promise.reject(new Error('not used')),
    refundStatus: () => Promise.reject(new Error('not used')),
    vendorOrders: () => Promise.reject(new Error('not used')),
    findOrder: () => Promise.reject(new Error('not used')),
    profileReport: () => Promise.reject(new Error('not used')),
  };
  const deps = () => ({ knex: h.db.knex, catalogue: unusedCatalogue, now: eightDaysOn });

  it('expires first, then refuses any other move', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    await expect(updateEsim(deps(), caller, esim.id, { state: 'installed' }, NO_CLAIM)).rejects.toMatchObject({
      code: 'invalid_state_transition',
    });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('expired');
    expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']);
  });

  it('takes a cancel as the expiry it is, with one event', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    const result = await updateEsim(deps(), caller, esim.id, { state: 'expired' }, NO_CLAIM);
    expect(result.state).toBe('expired');
    expect(await eventTypesOf(h, esim.id, 2)).toEqual(['esim.released', 'esim.expired']);
  });
});
