import { SUPPLIER_VENDORS, type Esim } from '@connectivity/contracts';
import { assertNoViolations } from '@connectivity/fake-suppliers';
import { createLogger, type InternalEvent } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import { eventually, headersFor, type Caller } from './support.ts';

/**
 * Validity as the vendor counts it (record 0230) and the vendor's units (record 0231), on each
 * vendor's fake through catalogue's adapter: a live eSIM bought today and first used in 8 days
 * expires 8 days + its duration from now; our sweeper never expires it on our clock; using exactly
 * the limit depletes it when the vendor says so, and not before.
 */
const DAY = 86_400;
const logger = createLogger({ name: 'live-validity-test', level: 'silent' });

const getEsim = async (h: LiveHarness, caller: Caller, id: string): Promise<Esim> => {
  const res = await request(h.app).get(`/v1/esim/${id}`).set(headersFor(caller));
  expect(res.status).toBe(200);
  return res.body as Esim;
};

/** One sweep by a sweeper whose clock is `aheadDays` days ahead of ours. */
const sweepAhead = (h: LiveHarness, aheadDays: number) =>
  startExpirySweeper({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 50, now: () => new Date(Date.now() + aheadDays * DAY * 1000) }).sweep();

const eventOf = (h: LiveHarness, esimId: string, type: string) =>
  h.events.find((e: InternalEvent) => e.type === type && (e.data as { object?: { id?: string } }).object?.id === esimId);

describe.each(SUPPLIER_VENDORS)('a live eSIM from %s', (vendor) => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory(vendor, { SUPPLIER_RECONCILE_INTERVAL_MS: '300', SUPPLIER_RECONCILE_BATCH: '5' });
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('bought today and first used in 8 days expires 8 days + its duration from now; expires_at is null until then', async () => {
    const caller = await h.account();
    const [bought] = (await h.buy(caller, 1)).esims as [Esim];
    expect(bought).toMatchObject({ validity_start: 'first_use', expires_at: null });
    // Airalo's operator sets an install window (180 days in the fake's catalogue); eSIM Go has none.
    expect(bought.install_by).toBe(vendor === 'airalo' ? bought.created_at + 180 * DAY : null);
    // The sweeper with its clock 8 days ahead leaves it alone.
    expect(await sweepAhead(h, 8)).toBe(0);
    expect((await getEsim(h, caller, bought.id)).state).toBe('released');

    await h.fake.control.travel(8 * DAY * 1000);
    await h.fake.control.install(bought.iccid);
    await h.fake.control.attach(bought.iccid);
    if (vendor === 'esim-go') {
      // FirstAttachment: it joined a network; the bundle has not started.
      await eventually(() => expect(h.eventsOf(bought.id)).toEqual(['esim.released', 'esim.installed']), 20_000);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(await getEsim(h, caller, bought.id)).toMatchObject({ state: 'installed', expires_at: null });
      await h.fake.control.useData(bought.iccid, 1_000);
    }
    await eventually(() => expect(h.eventsOf(bought.id)).toEqual(['esim.released', 'esim.installed', 'esim.activated']), 20_000);
    const started = Math.floor(Date.now() / 1000) + 8 * DAY;
    const active = await getEsim(h, caller, bought.id);
    expect(active.state).toBe('active');
    expect(Math.abs(active.expires_at! - (started + 7 * DAY))).toBeLessThan(120);
    // The event carries the eSIM as it is after the move: its validity already counted. (When
    // reconciliation sees the start before eSIM Go's FirstUse callback, it counts from when it saw
    // it, which the fake's clock, moved 8 days ahead, puts 8 days before the vendor's own end.)
    const activated = eventOf(h, bought.id, 'esim.activated')!;
    const announced = (activated.data as { object: Esim }).object.expires_at!;
    expect(announced).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 7 * DAY - 120);
    expect(announced).toBeLessThanOrEqual(active.expires_at!);

    // Live eSIMs end on the vendor's word, never on our clock.
    expect(await sweepAhead(h, 30)).toBe(0);
    expect((await getEsim(h, caller, bought.id)).state).toBe('active');
    await h.fake.control.travel(7 * DAY * 1000 + 60_000);
    if (vendor === 'esim-go') await h.fake.control.expire(bought.iccid);
    await eventually(async () => expect(await getEsim(h, caller, bought.id)).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' }), 20_000);
  });

  it('using exactly the limit depletes when the vendor says 0 left, not before; 100 % never fires while it reports data left', async () => {
    const caller = await h.account();
    const [esim] = (await h.buy(caller, 1)).esims as [Esim];
    // Record 0231: Airalo's 1 GB is 1024 MB of 1024 x 1024 bytes; eSIM Go's is 1000 MB of 10^6 bytes.
    const limit = vendor === 'airalo' ? 1024 * 1024 * 1024 : 1_000_000_000;
    expect(esim.data_limit_bytes).toBe(limit);
    await h.fake.control.install(esim.iccid);
    await h.fake.control.attach(esim.iccid);
    await h.fake.control.useData(esim.iccid, limit - 1);
    await eventually(() => expect(h.eventsOf(esim.id)).toContain('esim.usage.threshold:80'), 20_000);
    // Several reconciliation rounds: the vendor still reports the eSIM in use.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(h.eventsOf(esim.id)).not.toContain('esim.usage.threshold:100');
    const nearly = await getEsim(h, caller, esim.id);
    expect(nearly.state).toBe('active');
    expect(nearly.data_used_bytes).toBeLessThan(limit);

    await h.fake.control.useData(esim.iccid, 1);
    await eventually(
      async () => expect(await getEsim(h, caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit }),
      20_000,
    );
    await eventually(() => expect(h.eventsOf(esim.id).slice(-2)).toEqual(['esim.usage.threshold:100', 'esim.expired']), 10_000);
    expect(h.eventsOf(esim.id).filter((e) => e === 'esim.usage.threshold:100')).toHaveLength(1);
  });
});

describe("reconciliation at Airalo's pace (record 0234), with the fake's usage cache on", () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory(
      'airalo',
      { SUPPLIER_RECONCILE_INTERVAL_MS: '200', SUPPLIER_RECONCILE_BATCH: '10', SUPPLIER_POLL_BUDGET_PER_MINUTE: '1000' },
      // The documented 20-minute cache at the fake, and the adapter told the same (its default).
      { fake: { usageCacheMs: 1_200_000 } },
    );
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('asks about each eSIM once per cache period, whatever its own pace', async () => {
    const caller = await h.account();
    const esims = (await h.buy(caller, 3)).esims;
    await h.fake.control.resetObservations();
    const usageCalls = () => Object.entries(h.fake.control.counters().calls).reduce((n, [call, count]) => n + (call.includes('/usage') ? count : 0), 0);
    await eventually(() => expect(usageCalls()).toBe(3), 10_000);
    // Ten passes later: no eSIM was asked twice (nothing could have changed within the cache).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(usageCalls()).toBe(3);
    const ids = esims.map((e) => e.id);
    const next = await h.db.knex<{ id: string; supplier_next_check_at: string }>('inventory.esims').whereIn('id', ids).select('supplier_next_check_at');
    for (const row of next) expect(Number(row.supplier_next_check_at)).toBeGreaterThan(Date.now() + 19 * 60_000);
  });
});

describe('the poll budget (record 0234)', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go', { SUPPLIER_RECONCILE_INTERVAL_MS: '100', SUPPLIER_RECONCILE_BATCH: '10', SUPPLIER_POLL_BUDGET_PER_MINUTE: '4' });
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('is spent once per minute for the supplier, however many passes run', async () => {
    const caller = await h.account();
    await h.buy(caller, 6);
    await h.fake.control.resetObservations();
    const detailCalls = () =>
      Object.entries(h.fake.control.counters().calls).reduce((n, [call, count]) => n + (/GET \/esims\/\{iccid\}$/.test(call) ? count : 0), 0);
    await eventually(() => expect(detailCalls()).toBe(4), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(detailCalls()).toBe(4);
    const [budget] = await h.db.knex<{ spent: number }>('inventory.supplier_poll_budget').select('spent');
    expect(budget?.spent).toBe(4);
  });
});

describe('an eSIM the vendor deleted (record 0235)', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go', { SUPPLIER_RECONCILE_INTERVAL_MS: '200', SUPPLIER_RECONCILE_BATCH: '10' });
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('ends expired with supplier_deleted and one esim.expired', async () => {
    const caller = await h.account();
    const [esim] = (await h.buy(caller, 1)).esims as [Esim];
    // Revoked at the vendor behind our back (its portal): never installed, no bundle left, so eSIM Go's
    // returns process takes it off the account.
    const fake = h.fake as { url: string; apiKey: string };
    const revoked = await fetch(`${fake.url}/esims/${esim.iccid}/bundles/esim_1GB_7D_GB_V2?type=transaction`, {
      method: 'DELETE',
      headers: { 'X-API-Key': fake.apiKey },
    });
    expect(revoked.status).toBe(200);
    await eventually(async () => expect(await getEsim(h, caller, esim.id)).toMatchObject({ state: 'expired', expired_reason: 'supplier_deleted' }), 20_000);
    await eventually(() => expect(h.eventsOf(esim.id)).toEqual(['esim.released', 'esim.expired']), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(h.eventsOf(esim.id)).toEqual(['esim.released', 'esim.expired']);
  });
});
