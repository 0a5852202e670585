import type { ProfileReport } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import type { EsimRecord } from '../src/domain/esim.ts';
import { esimEventType } from '../src/domain/esim-events.ts';
import { planSupplierReport } from '../src/domain/supplier-report.ts';

const GB = 1_000_000_000;
const NOW = 1_800_000_000;

const esim = (over: Partial<EsimRecord> = {}): EsimRecord => ({
  id: 'esim_01jd8x7k2m9q4r5s6t7v8w9xyz',
  account_id: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
  environment: 'live',
  order_id: 'ord_01jd8x7k2m9q4r5s6t7v8w9xyz',
  iccid: '8988247000000000017',
  state: 'released',
  expired_reason: null,
  bundle: 'esim_1GB_7D_US',
  data_used_bytes: 0,
  data_limit_bytes: GB,
  thresholds_notified: [],
  activation_code: 'LPA:1$smdp.example$MATCH',
  smdp_address: 'smdp.example',
  matching_id: 'MATCH',
  validity_start: 'first_use',
  validity_days: 7,
  expires_at: null,
  install_by: null,
  created_at: NOW - 60,
  updated_at: NOW - 60,
  metadata: {},
  test_clock: null,
  ...over,
});

const report = (over: Partial<ProfileReport> = {}): ProfileReport => ({
  iccid: '8988247000000000017',
  state: 'released',
  expired_reason: null,
  data_used_bytes: null,
  data_limit_bytes: GB,
  expires_at: null,
  observed_at: NOW,
  ...over,
});

/** The events a plan announces, as `type` or `type:percent`. */
const eventsOf = (plan: ReturnType<typeof planSupplierReport>) =>
  plan.changes.map((change) => (change.kind === 'threshold' ? `${esimEventType(change)}:${change.threshold_percent}` : esimEventType(change)));

describe('a supplier report applied to a live eSIM', () => {
  it('installed: released moves to installed, once', () => {
    const plan = planSupplierReport(esim(), null, report({ state: 'installed' }), NOW);
    expect(eventsOf(plan)).toEqual(['esim.installed']);
    expect(plan.esim.state).toBe('installed');
    expect(plan.observedAt).toBe(NOW);
    // The same report again, on the eSIM as the first left it: nothing new.
    const again = planSupplierReport(plan.esim, plan.observedAt, report({ state: 'installed' }), NOW);
    expect(again.changes).toEqual([]);
    expect(again.changed).toBe(false);
  });

  it('active from released (a vendor that reports no install) passes through installed', () => {
    const plan = planSupplierReport(esim(), null, report({ state: 'active' }), NOW);
    expect(eventsOf(plan)).toEqual(['esim.installed', 'esim.activated']);
    expect(plan.changes.map((c) => (c.kind === 'state' ? c.previous_state : null))).toEqual(['released', 'installed']);
  });

  it('usage raises data_used_bytes and fires each threshold reached, in order, once', () => {
    const first = planSupplierReport(esim({ state: 'active' }), null, report({ state: 'active', data_used_bytes: GB * 0.6 }), NOW);
    expect(eventsOf(first)).toEqual(['esim.usage.threshold:50']);
    expect(first.esim.data_used_bytes).toBe(GB * 0.6);
    expect(first.esim.thresholds_notified).toEqual([50]);
    // Record 0231: all the data counted, but the supplier still says active (it rounds what is left):
    // 100 % waits for its word that the data is finished.
    const second = planSupplierReport(first.esim, first.observedAt, report({ state: 'active', data_used_bytes: GB, observed_at: NOW + 60 }), NOW + 60);
    expect(eventsOf(second)).toEqual(['esim.usage.threshold:80']);
    expect(second.esim.state).toBe('active');
    expect(second.esim.data_used_bytes).toBe(GB - 1);
    const finished = report({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB, observed_at: NOW + 120 });
    const third = planSupplierReport(second.esim, second.observedAt, finished, NOW + 120);
    expect(eventsOf(third)).toEqual(['esim.usage.threshold:100', 'esim.expired']);
    expect(third.esim.data_used_bytes).toBe(GB);
  });

  it('usage never goes down, and is capped at the limit', () => {
    const held = esim({ state: 'active', data_used_bytes: GB / 2, thresholds_notified: [50], expires_at: NOW + 7 * 86_400 });
    const lower = planSupplierReport(held, NOW - 10, report({ state: 'active', data_used_bytes: GB / 4 }), NOW);
    expect(lower.changed).toBe(false);
    expect(lower.esim.data_used_bytes).toBe(GB / 2);
    // Capped under the limit while the supplier says active (record 0231), at it once it says finished.
    const over = planSupplierReport(held, NOW - 10, report({ state: 'active', data_used_bytes: GB * 3 }), NOW);
    expect(over.esim.data_used_bytes).toBe(GB - 1);
    const finished = planSupplierReport(held, NOW - 10, report({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB * 3 }), NOW);
    expect(finished.esim.data_used_bytes).toBe(GB);
  });

  it('depleted from released: installed, activated, 50, 80, 100, expired (data_exhausted), each once', () => {
    const depleted = report({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB });
    const plan = planSupplierReport(esim(), null, depleted, NOW);
    expect(eventsOf(plan)).toEqual([
      'esim.installed',
      'esim.activated',
      'esim.usage.threshold:50',
      'esim.usage.threshold:80',
      'esim.usage.threshold:100',
      'esim.expired',
    ]);
    expect(plan.esim).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB, updated_at: NOW });
    expect(planSupplierReport(plan.esim, plan.observedAt, depleted, NOW).ignored).toBe('final');
  });

  it('validity ended on an unused profile: released straight to expired (validity_ended)', () => {
    const plan = planSupplierReport(esim(), null, report({ state: 'expired', expired_reason: 'validity_ended', data_used_bytes: 0 }), NOW);
    expect(eventsOf(plan)).toEqual(['esim.expired']);
    expect(plan.esim.expired_reason).toBe('validity_ended');
  });

  it('expired without a reason: data_exhausted at the limit, validity_ended otherwise', () => {
    expect(planSupplierReport(esim({ state: 'active' }), null, report({ state: 'expired' }), NOW).esim.expired_reason).toBe('validity_ended');
    expect(planSupplierReport(esim({ state: 'active' }), null, report({ state: 'expired', data_used_bytes: GB }), NOW).esim.expired_reason).toBe(
      'data_exhausted',
    );
  });

  it('a report older than the newest applied changes nothing (out of order)', () => {
    const newer = planSupplierReport(esim(), null, report({ state: 'active', data_used_bytes: GB / 10, observed_at: NOW + 100 }), NOW);
    const older = planSupplierReport(newer.esim, newer.observedAt, report({ state: 'installed', data_used_bytes: 0, observed_at: NOW + 50 }), NOW);
    expect(older.ignored).toBe('stale');
    expect(older.changes).toEqual([]);
    expect(older.observedAt).toBe(NOW + 100);
  });

  it('a report that says less than we hold moves nothing back', () => {
    const plan = planSupplierReport(esim({ state: 'active' }), NOW - 100, report({ state: 'released' }), NOW);
    expect(plan.changes).toEqual([]);
    expect(plan.esim.state).toBe('active');
    // What we know of the supplier still advances.
    expect(plan.observedAt).toBe(NOW);
  });

  it('a suspended eSIM stays suspended: usage and expiry apply, the supplier resumes nothing', () => {
    const suspended = esim({ state: 'suspended' });
    expect(planSupplierReport(suspended, null, report({ state: 'active' }), NOW).changes).toEqual([]);
    const used = planSupplierReport(suspended, null, report({ state: 'active', data_used_bytes: GB / 2 }), NOW);
    expect(eventsOf(used)).toEqual(['esim.usage.threshold:50']);
    expect(used.esim.state).toBe('suspended');
    const ended = planSupplierReport(suspended, null, report({ state: 'suspended' }), NOW);
    expect(ended.changes).toEqual([]);
    const expired = planSupplierReport(suspended, null, report({ state: 'expired', expired_reason: 'cancelled' }), NOW);
    expect(eventsOf(expired)).toEqual(['esim.expired']);
    expect(expired.esim.expired_reason).toBe('cancelled');
  });

  it("a supplier's `suspended` on an installed eSIM says it had been active", () => {
    expect(eventsOf(planSupplierReport(esim({ state: 'installed' }), null, report({ state: 'suspended' }), NOW))).toEqual(['esim.activated']);
  });

  it("takes the supplier's end of validity, without an event", () => {
    const plan = planSupplierReport(esim({ state: 'active' }), null, report({ state: 'active', expires_at: NOW + 30 * 86_400 }), NOW);
    expect(plan.changes).toEqual([]);
    expect(plan.changed).toBe(true);
    expect(plan.esim.expires_at).toBe(NOW + 30 * 86_400);
  });

  it('unlimited: usage is kept uncapped and fires no threshold', () => {
    const plan = planSupplierReport(
      esim({ state: 'active', data_limit_bytes: null }),
      null,
      report({ state: 'active', data_used_bytes: 5 * GB, data_limit_bytes: null }),
      NOW,
    );
    expect(plan.changes).toEqual([]);
    expect(plan.esim.data_used_bytes).toBe(5 * GB);
  });

  it('ignores sandbox eSIMs and expired ones', () => {
    expect(planSupplierReport(esim({ environment: 'test' }), null, report({ state: 'active' }), NOW).ignored).toBe('sandbox');
    expect(planSupplierReport(esim({ state: 'expired', expired_reason: 'cancelled' }), null, report({ state: 'active' }), NOW).ignored).toBe('final');
  });

  it('a first-use validity: expires_at null until the supplier reports the start, then start + duration, on the events too (record 0230)', () => {
    const installed = planSupplierReport(esim(), null, report({ state: 'installed' }), NOW);
    expect(installed.esim.expires_at).toBeNull();
    const started = NOW + 8 * 86_400;
    const active = planSupplierReport(
      installed.esim,
      installed.observedAt,
      report({ state: 'active', data_used_bytes: 1, started_at: started, observed_at: started + 30 }),
      started + 30,
    );
    expect(active.esim.expires_at).toBe(started + 7 * 86_400);
    expect(active.changes.map((c) => c.esim.expires_at)).toEqual([started + 7 * 86_400]);
    // Reconciliation saw the start without a time: it counts from when it was observed, once.
    const observed = planSupplierReport(installed.esim, installed.observedAt, report({ state: 'active', observed_at: started }), started);
    expect(observed.esim.expires_at).toBe(started + 7 * 86_400);
    const later = planSupplierReport(observed.esim, observed.observedAt, report({ state: 'active', observed_at: started + 600 }), started + 600);
    expect(later.esim.expires_at).toBe(started + 7 * 86_400);
    // The supplier's own end holds over ours.
    const said = planSupplierReport(
      observed.esim,
      observed.observedAt,
      report({ state: 'active', expires_at: started + 5, observed_at: started + 700 }),
      started + 700,
    );
    expect(said.esim.expires_at).toBe(started + 5);
  });
});
