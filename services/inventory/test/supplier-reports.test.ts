import { randomInt } from 'node:crypto';
import type { ProfileReport } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esimInsertion } from '../src/db/esim-repository.ts';
import { orderInsertion } from '../src/db/order-repository.ts';
import { claimEsimsToCheck, storeReports } from '../src/db/supplier-report-repository.ts';
import type { EsimRecord } from '../src/domain/esim.ts';
import { applySupplierReport } from '../src/use-cases/apply-supplier-report.ts';
import { startSupplierReportRetention } from '../src/workers/supplier-report-retention.ts';
import { startSupplierReportWorker } from '../src/workers/supplier-report-worker.ts';
import { eventually, newCaller, startInventory, type Harness } from './support.ts';

/**
 * Supplier reports applied to live eSIMs, from the inbox (callbacks) and directly (reconciliation
 * uses the same use case): each event once whichever path reports first, in whatever order, with
 * duplicates and with workers side by side. The live eSIMs are written as an order would write them.
 */
let h: Harness;
beforeAll(async () => {
  // Each test runs the report workers it needs; the service's own worker would apply a report
  // the test means to keep pending (the retention test raced it in CI), so it waits an hour.
  h = await startInventory({ SUPPLIER_REPORTS_POLL_INTERVAL_MS: String(3_600_000) });
});
afterAll(async () => {
  await h?.close();
});

const GB = 1_000_000_000;
const logger = createLogger({ name: 'supplier-reports-test', level: 'silent' });
const nowSeconds = () => Math.floor(Date.now() / 1000);
const newIccid = () => `8988${String(randomInt(10 ** 7, 10 ** 8))}${String(randomInt(10 ** 6, 10 ** 7))}`;

async function seedLiveEsim(): Promise<EsimRecord> {
  const caller = newCaller('live');
  const at = nowSeconds();
  const orderId = newId('order');
  await orderInsertion(h.db.knex, {
    id: orderId,
    account_id: caller.accountId,
    environment: 'live',
    bundle: 'esim_1GB_7D_GB',
    quantity: 1,
    price_cents: 500,
    total_cents: 500,
    currency: 'USD',
    metadata: {},
    test_clock: null,
    created_at: at,
  });
  const esim: EsimRecord = {
    id: newId('esim'),
    account_id: caller.accountId,
    environment: 'live',
    order_id: orderId,
    iccid: newIccid(),
    state: 'released',
    expired_reason: null,
    bundle: 'esim_1GB_7D_GB',
    data_used_bytes: 0,
    data_limit_bytes: GB,
    thresholds_notified: [],
    activation_code: 'LPA:1$smdp.example.com$MATCHING-ID',
    smdp_address: 'smdp.example.com',
    matching_id: 'MATCHING-ID',
    validity_start: 'purchase',
    validity_days: 7,
    expires_at: at + 7 * 86_400,
    install_by: null,
    created_at: at,
    updated_at: at,
    metadata: {},
    test_clock: null,
  };
  await esimInsertion(h.db.knex, [esim]);
  return esim;
}

const report = (iccid: string, over: Partial<ProfileReport> = {}): ProfileReport => ({
  iccid,
  state: 'released',
  expired_reason: null,
  data_used_bytes: null,
  data_limit_bytes: GB,
  expires_at: null,
  observed_at: nowSeconds(),
  ...over,
});

const FULL_LIFE = ['esim.installed', 'esim.activated', 'esim.usage.threshold:50', 'esim.usage.threshold:80', 'esim.usage.threshold:100', 'esim.expired'];

/** The events published for an eSIM (thresholds with their percent), once `count` arrived and nothing more came. */
async function settledEvents(esimId: string, count: number): Promise<string[]> {
  const types = () =>
    h.eventsOf(esimId).map((event) => {
      const percent = (event.data as { threshold_percent?: number }).threshold_percent;
      return percent === undefined ? event.type : `${event.type}:${percent}`;
    });
  await eventually(() => expect(types().length).toBeGreaterThanOrEqual(count));
  // Anything emitted twice would arrive within the relay's poll.
  await new Promise((resolve) => setTimeout(resolve, 400));
  return types();
}

const row = async (esimId: string) => (await h.db.knex('inventory.esims').where({ id: esimId }).first()) as Record<string, unknown>;
const inboxRows = async (iccid: string) => (await h.db.knex('inventory.supplier_reports').where({ iccid })) as { applied_at: string | number | null }[];

describe('a supplier report', () => {
  it('from a callback and then from reconciliation: each event once', async () => {
    const esim = await seedLiveEsim();
    const depleted = report(esim.iccid, { state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB });
    expect(await storeReports(h.db.knex, 'esim-go', [depleted], Date.now(), {})).toBe(1);
    const worker = startSupplierReportWorker({ knex: h.db.knex, logger, intervalMs: 3_600_000 });
    try {
      await worker.runOnce();
    } finally {
      await worker.stop();
    }
    await eventually(async () => expect((await inboxRows(esim.iccid))[0]?.applied_at).not.toBeNull());
    expect(await applySupplierReport(h.db.knex, depleted)).toBe('final');
    expect(await settledEvents(esim.id, FULL_LIFE.length)).toEqual(FULL_LIFE);
    expect(await row(esim.id)).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', thresholds_notified: [50, 80, 100] });
    expect(Number((await row(esim.id)).data_used_bytes)).toBe(GB);
  });

  it('from reconciliation and then from a callback: each event once', async () => {
    const esim = await seedLiveEsim();
    const active = report(esim.iccid, { state: 'active', data_used_bytes: GB / 2 });
    expect(await applySupplierReport(h.db.knex, active)).toBe('applied');
    expect(await storeReports(h.db.knex, 'airalo', [active], Date.now(), {})).toBe(1);
    const worker = startSupplierReportWorker({ knex: h.db.knex, logger, intervalMs: 3_600_000 });
    await worker.runOnce();
    await worker.stop();
    expect(await settledEvents(esim.id, 3)).toEqual(['esim.installed', 'esim.activated', 'esim.usage.threshold:50']);
  });

  it('stored twice stores once (the same callback delivered again)', async () => {
    const esim = await seedLiveEsim();
    const installed = report(esim.iccid, { state: 'installed' });
    expect(await storeReports(h.db.knex, 'esim-go', [installed, installed], Date.now(), {})).toBe(1);
    expect(await storeReports(h.db.knex, 'esim-go', [installed], Date.now(), {})).toBe(0);
    // The same words from the other vendor are another report (the key includes the vendor).
    expect(await storeReports(h.db.knex, 'airalo', [installed], Date.now(), {})).toBe(1);
    expect(await inboxRows(esim.iccid)).toHaveLength(2);
  });

  it('out of order: an older report after a newer one changes nothing', async () => {
    const esim = await seedLiveEsim();
    const t = nowSeconds();
    expect(await applySupplierReport(h.db.knex, report(esim.iccid, { state: 'active', data_used_bytes: GB / 10, observed_at: t }))).toBe('applied');
    expect(await applySupplierReport(h.db.knex, report(esim.iccid, { state: 'installed', data_used_bytes: 0, observed_at: t - 60 }))).toBe('stale');
    expect(await applySupplierReport(h.db.knex, report(esim.iccid, { state: 'expired', expired_reason: 'validity_ended', observed_at: t - 30 }))).toBe('stale');
    expect(await row(esim.id)).toMatchObject({ state: 'active', supplier_observed_at: expect.anything() as unknown });
    expect(Number((await row(esim.id)).data_used_bytes)).toBe(GB / 10);
    expect(await settledEvents(esim.id, 2)).toEqual(['esim.installed', 'esim.activated']);
  });

  it('of an ICCID we never sold is marked applied and changes nothing', async () => {
    const iccid = newIccid();
    expect(await applySupplierReport(h.db.knex, report(iccid, { state: 'active' }))).toBe('unknown');
    await storeReports(h.db.knex, 'airalo', [report(iccid, { state: 'active' })], Date.now(), {});
    const worker = startSupplierReportWorker({ knex: h.db.knex, logger, intervalMs: 3_600_000 });
    await worker.runOnce();
    await worker.stop();
    await eventually(async () => expect((await inboxRows(iccid))[0]?.applied_at).not.toBeNull());
  });

  it('from two workers side by side, in any order: each event once per eSIM', async () => {
    const esims = await Promise.all(Array.from({ length: 6 }, () => seedLiveEsim()));
    const t = nowSeconds();
    const reports = esims.flatMap((esim) => [
      report(esim.iccid, { state: 'installed', observed_at: t }),
      report(esim.iccid, { state: 'active', data_used_bytes: (GB * 6) / 10, observed_at: t + 1 }),
      report(esim.iccid, { state: 'active', data_used_bytes: (GB * 9) / 10, observed_at: t + 2 }),
      report(esim.iccid, { state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB, observed_at: t + 3 }),
    ]);
    // Stored in a shuffled order, a few at a time, as callbacks arrive.
    const shuffled = [...reports].sort(() => Math.random() - 0.5);
    for (let i = 0; i < shuffled.length; i += 5) await storeReports(h.db.knex, 'esim-go', shuffled.slice(i, i + 5), Date.now() + i, {});
    const workers = [1, 2].map(() => startSupplierReportWorker({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 3 }));
    try {
      await Promise.all(workers.map((worker) => worker.runOnce()));
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    for (const esim of esims) {
      await eventually(async () => expect((await row(esim.id)).state).toBe('expired'));
      const events = await settledEvents(esim.id, FULL_LIFE.length);
      // Whatever order they were applied in, nothing fired twice and the eSIM ended its life.
      expect(new Set(events).size).toBe(events.length);
      expect(events).toContain('esim.activated');
      expect(events).toContain('esim.usage.threshold:100');
      expect(events.at(-1)).toBe('esim.expired');
    }
  });
});

describe('the inbox', () => {
  it("keeps the callback's trace with its reports", async () => {
    const esim = await seedLiveEsim();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await storeReports(h.db.knex, 'esim-go', [report(esim.iccid, { state: 'installed' })], Date.now(), { traceparent });
    const [stored] = (await h.db.knex('inventory.supplier_reports').where({ iccid: esim.iccid })) as { trace_headers: unknown }[];
    expect(stored?.trace_headers).toEqual({ traceparent });
  });

  it('deletes applied reports past its retention, and never one not applied yet', async () => {
    const [old, recent, pending] = await Promise.all([seedLiveEsim(), seedLiveEsim(), seedLiveEsim()]);
    const now = Date.now();
    for (const esim of [old, recent, pending]) await storeReports(h.db.knex, 'airalo', [report(esim.iccid, { state: 'installed' })], now - 10 * 86_400_000, {});
    const inbox = () => h.db.knex('inventory.supplier_reports');
    await inbox()
      .where({ iccid: old.iccid })
      .update({ applied_at: now - 8 * 86_400_000 });
    await inbox()
      .where({ iccid: recent.iccid })
      .update({ applied_at: now - 86_400_000 });

    const retention = startSupplierReportRetention({ knex: h.db.knex, logger, keepMs: 7 * 86_400_000, intervalMs: 3_600_000, batchSize: 2 });
    try {
      await retention.runOnce();
    } finally {
      await retention.stop();
    }
    expect(await inboxRows(old.iccid)).toEqual([]);
    expect(await inboxRows(recent.iccid)).toHaveLength(1);
    expect(await inboxRows(pending.iccid)).toMatchObject([{ applied_at: null }]);
  });
});

describe('reconciliation claims', () => {
  it('from two instances at once never take the same eSIM, and an eSIM checked this interval waits its turn', async () => {
    const esims = await Promise.all(Array.from({ length: 8 }, () => seedLiveEsim()));
    const ids = new Set(esims.map((esim) => esim.id));
    const now = Date.now();
    const claims = await Promise.all([1, 2].map(() => claimEsimsToCheck(h.db.knex, now, now - 60_000, 1_000)));
    const taken = claims.flat().filter((esim) => ids.has(esim.id));
    // Each of ours once, whichever instance took it.
    expect(taken.map((esim) => esim.id).sort()).toEqual([...ids].sort());
    const again = await claimEsimsToCheck(h.db.knex, now + 1_000, now + 1_000 - 60_000, 1_000);
    expect(again.filter((esim) => ids.has(esim.id))).toEqual([]);
    // Least recently checked first: the next round takes them again, oldest check first.
    const later = await claimEsimsToCheck(h.db.knex, now + 120_000, now + 60_000, 1_000);
    expect(later.filter((esim) => ids.has(esim.id))).toHaveLength(8);
  });
});
