import { ESIM_STATES, type EsimState } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { apiErrorOf } from './api-error-of.ts';
import { assertCanReach } from '../src/domain/access.ts';
import { activationCode } from '../src/domain/activation-code.ts';
import { assertCanPay, lowBalanceChange } from '../src/domain/balance.ts';
import { assertOrderable, assertVerified, dataLimitBytes, priceOrder } from '../src/domain/order.ts';
import { expiresAtPurchase, expiresFromStart, installBy } from '../src/domain/validity.ts';
import { releaseRetryDelayMs } from '../src/domain/release-backoff.ts';
import { TRANSITIONS, allowedPatchTargets, planPatch } from '../src/domain/state-machine.ts';
import { crossedThresholds } from '../src/domain/thresholds.ts';
import { applyUsage, type UsageSubject } from '../src/domain/usage.ts';

describe('the state machine', () => {
  const table: Record<EsimState, EsimState[]> = {
    released: ['installed', 'expired'],
    installed: ['active', 'expired'],
    active: ['suspended', 'expired'],
    suspended: ['active', 'expired'],
    expired: [],
  };

  it('is the table of record 0252', () => {
    expect(TRANSITIONS).toEqual(table);
  });

  for (const from of ESIM_STATES) {
    for (const to of ESIM_STATES) {
      const allowed = table[from].includes(to);
      it(`test key: ${from} -> ${to} is ${from === to ? 'unchanged' : allowed ? 'a move' : 'refused'}`, () => {
        if (from === to) expect(planPatch(from, to, 'test')).toEqual({ kind: 'unchanged' });
        else if (allowed) expect(planPatch(from, to, 'test')).toEqual({ kind: 'move', from, to });
        else {
          const error = apiErrorOf(() => planPatch(from, to, 'test'));
          expect(error.code).toBe('invalid_state_transition');
          expect(error.detail).toContain(`current state: ${from}`);
          for (const target of table[from]) expect(error.message).toContain(target);
        }
      });
    }
  }

  it('lets live keys only suspend, resume and cancel', () => {
    expect(allowedPatchTargets('released', 'live')).toEqual(['expired']);
    expect(allowedPatchTargets('installed', 'live')).toEqual(['expired']);
    expect(allowedPatchTargets('active', 'live')).toEqual(['suspended', 'expired']);
    expect(allowedPatchTargets('suspended', 'live')).toEqual(['active', 'expired']);
    expect(allowedPatchTargets('expired', 'live')).toEqual([]);
  });

  it('says the device makes the move when a live key tries install or activate', () => {
    for (const [from, to] of [
      ['released', 'installed'],
      ['installed', 'active'],
    ] as const) {
      const error = apiErrorOf(() => planPatch(from, to, 'live'));
      expect(error.code).toBe('invalid_state_transition');
      expect(error.message).toMatch(/device/);
      expect(error.detail).toContain('allowed targets: expired');
    }
  });

  it('calls expired final', () => {
    const error = apiErrorOf(() => planPatch('expired', 'active', 'test'));
    expect(error.message).toMatch(/final/);
  });
});

describe('thresholds', () => {
  const limit = 1_000;
  it('fires each threshold reached, in order, once', () => {
    expect(crossedThresholds(499, limit, [])).toEqual([]);
    expect(crossedThresholds(500, limit, [])).toEqual([50]);
    expect(crossedThresholds(1_000, limit, [])).toEqual([50, 80, 100]);
    expect(crossedThresholds(900, limit, [50])).toEqual([80]);
    expect(crossedThresholds(1_000, limit, [50, 80, 100])).toEqual([]);
  });
});

describe('applyUsage', () => {
  const fresh = (over: Partial<UsageSubject> = {}): UsageSubject => ({
    expired_reason: null,
    state: 'released',
    data_used_bytes: 0,
    data_limit_bytes: 1_000_000,
    thresholds_notified: [],
    ...over,
  });

  it('installs and activates a released eSIM first', () => {
    const { esim, steps } = applyUsage(fresh(), 10);
    expect(esim.state).toBe('active');
    expect(esim.data_used_bytes).toBe(10);
    expect(steps.map((s) => (s.kind === 'state' ? s.esim.state : s.threshold_percent))).toEqual(['installed', 'active']);
    expect(steps[0]).toMatchObject({ previous_state: 'released' });
    expect(steps[1]).toMatchObject({ previous_state: 'installed' });
  });

  it('activates an installed eSIM without installing it again', () => {
    const { steps } = applyUsage(fresh({ state: 'installed' }), 10);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'state', previous_state: 'installed' });
  });

  it('crosses several thresholds in one call, clamps at the limit and expires', () => {
    const { esim, steps } = applyUsage(fresh({ state: 'active', data_used_bytes: 400_000, thresholds_notified: [] }), 5_000_000);
    expect(esim.data_used_bytes).toBe(1_000_000);
    expect(esim.state).toBe('expired');
    expect(esim.expired_reason).toBe('data_exhausted');
    expect(esim.thresholds_notified).toEqual([50, 80, 100]);
    expect(steps.map((s) => (s.kind === 'state' ? s.esim.state : s.threshold_percent))).toEqual([50, 80, 100, 'expired']);
    expect(steps.at(-1)).toMatchObject({ previous_state: 'active' });
  });

  it('does not fire a threshold twice', () => {
    const first = applyUsage(fresh({ state: 'active' }), 600_000);
    expect(first.steps.map((s) => s.kind)).toEqual(['threshold']);
    const second = applyUsage(first.esim, 100_000);
    expect(second.steps).toEqual([]);
  });

  it('has no limit and no thresholds for unlimited bundles', () => {
    const { esim, steps } = applyUsage(fresh({ state: 'active', data_limit_bytes: null }), 10 ** 12);
    expect(esim.data_used_bytes).toBe(10 ** 12);
    expect(esim.state).toBe('active');
    expect(steps).toEqual([]);
  });

  it('refuses usage on suspended and expired eSIMs, and bad byte counts', () => {
    for (const state of ['suspended', 'expired'] as const) {
      const error = apiErrorOf(() => applyUsage(fresh({ state }), 1));
      expect(error.code).toBe('invalid_parameter');
      expect(error.param).toBe('esim');
    }
    for (const bytes of [0, -1, 1.5, Number.NaN]) {
      expect(apiErrorOf(() => applyUsage(fresh(), bytes)).param).toBe('bytes');
    }
  });
});

describe('orders', () => {
  it('derives the limit, validity and price', () => {
    expect(dataLimitBytes({ data_limit_bytes: 5_000_000_000, unlimited: false })).toBe(5_000_000_000);
    expect(dataLimitBytes({ data_limit_bytes: null, unlimited: true })).toBeNull();
    expect(expiresAtPurchase(1_000, 30, 'purchase')).toBe(1_000 + 30 * 86_400);
    expect(expiresAtPurchase(1_000, undefined, 'purchase')).toBeNull();
    // Record 0230: a first-use validity is unknown until the first use.
    expect(expiresAtPurchase(1_000, 30, 'first_use')).toBeNull();
    expect(expiresFromStart({ validity_days: 7 }, 5_000)).toBe(5_000 + 7 * 86_400);
    expect(installBy(1_000, 180)).toBe(1_000 + 180 * 86_400);
    expect(installBy(1_000, null)).toBeNull();
    expect(priceOrder({ price_cents: 1_599 }, 3, 'test')).toEqual({ price_cents: 1_599, total_cents: 4_797, currency: 'USD', rated: false });
    expect(priceOrder({ price_cents: 1_599 }, 1, 'live').rated).toBe(true);
  });

  it('refuses retired and sandbox-only bundles', () => {
    expect(apiErrorOf(() => assertOrderable({ name: 'b', retired: true, environments: ['test', 'live'] }, 'test')).code).toBe('capability_not_orderable');
    expect(apiErrorOf(() => assertOrderable({ name: 'b', retired: false, environments: ['test'] }, 'live')).code).toBe('capability_not_live');
    expect(() => assertOrderable({ name: 'b', retired: false, environments: ['test'] }, 'test')).not.toThrow();
  });

  it('needs a verified account with the balance for live orders', () => {
    expect(apiErrorOf(() => assertVerified({ verified: false })).code).toBe('verification_required');
    expect(apiErrorOf(() => assertVerified(undefined)).code).toBe('verification_required');
    expect(() => assertVerified({ verified: true })).not.toThrow();
    expect(apiErrorOf(() => assertCanPay(99, 100, 'live')).code).toBe('balance_insufficient');
    expect(() => assertCanPay(100, 100, 'live')).not.toThrow();
  });

  it('sends balance.low once per crossing of the threshold, and re-arms above it', () => {
    const armed = { low_threshold_cents: 1_000, low_notified: false };
    expect(lowBalanceChange(armed, 1_000)).toBe('none');
    expect(lowBalanceChange(armed, 999)).toBe('fire');
    expect(lowBalanceChange({ ...armed, low_notified: true }, 500)).toBe('none');
    expect(lowBalanceChange({ ...armed, low_notified: true }, 1_000)).toBe('rearm');
    expect(lowBalanceChange({ low_threshold_cents: null, low_notified: true }, 0)).toBe('rearm');
    expect(lowBalanceChange({ low_threshold_cents: null, low_notified: false }, 0)).toBe('none');
  });

  it('writes the LPA activation code', () => {
    expect(activationCode('sandbox.smdp.invalid', 'TEST-ABC')).toBe('LPA:1$sandbox.smdp.invalid$TEST-ABC');
  });
});

describe('the test/live boundary', () => {
  const esim = { account_id: 'acct_a', environment: 'live' as const };
  it('hides another account’s eSIM and names the environment mix-up', () => {
    expect(apiErrorOf(() => assertCanReach(esim, { accountId: 'acct_b', environment: 'live' })).code).toBe('resource_not_found');
    expect(apiErrorOf(() => assertCanReach(esim, { accountId: 'acct_a', environment: 'test' })).code).toBe('test_key_live_resource');
    expect(apiErrorOf(() => assertCanReach({ ...esim, environment: 'test' }, { accountId: 'acct_a', environment: 'live' })).code).toBe(
      'live_key_test_resource',
    );
    expect(() => assertCanReach(esim, { accountId: 'acct_a', environment: 'live' })).not.toThrow();
  });
});

describe('releaseRetryDelayMs', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4].map((n) => releaseRetryDelayMs(n, 100, 500))).toEqual([100, 200, 400, 500]);
    expect(releaseRetryDelayMs(10_000, 100, 500)).toBe(500);
  });
});
