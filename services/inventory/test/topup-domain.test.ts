import { describe, expect, it } from 'vitest';
import type { EsimRecord } from '../src/domain/esim.ts';
import { assertToppable, bundlesOnEsim, thresholdsReached, toppedUp, type TopupRecord } from '../src/domain/topup.ts';
import { apiErrorOf } from './api-error-of.ts';

/** What a top-up does to an eSIM and how the bundles on it are read (records 0241, 0243), without a database. */
const DAY = 86_400;
const GB = 1_000_000_000;
const T0 = 1_795_000_000;

const esim = (changes: Partial<EsimRecord> = {}): EsimRecord => ({
  id: 'esim_01m7q5cqg0m9s346q3d25vt4f5',
  account_id: 'acct_1',
  environment: 'test',
  order_id: 'ord_1',
  iccid: '8988299000042173854',
  state: 'active',
  expired_reason: null,
  bundle: 'esim_5GB_30D_EU',
  data_used_bytes: 0,
  data_limit_bytes: 5 * GB,
  thresholds_notified: [],
  activation_code: null,
  smdp_address: null,
  matching_id: null,
  validity_start: 'purchase',
  validity_days: 30,
  expires_at: T0 + 30 * DAY,
  install_by: null,
  created_at: T0,
  updated_at: T0,
  metadata: {},
  test_clock: null,
  ...changes,
});

const topup = (changes: Partial<TopupRecord>): TopupRecord => ({
  id: 'top_1',
  account_id: 'acct_1',
  environment: 'test',
  esim_id: 'esim_01m7q5cqg0m9s346q3d25vt4f5',
  bundle: 'esim_5GB_30D_EU',
  data_limit_bytes: 5 * GB,
  duration_days: 30,
  price_cents: 1599,
  currency: 'USD',
  status: 'succeeded',
  previous_expires_at: T0 + 30 * DAY,
  expires_at: T0 + 60 * DAY,
  created_at: T0 + DAY,
  ...changes,
});

const fiveGb = { data_limit_bytes: 5 * GB, unlimited: false, duration_days: 30 };

describe('toppedUp', () => {
  it('adds data and moves validity on from the later of its end and now', () => {
    expect(toppedUp(esim(), fiveGb, T0 + DAY, undefined)).toMatchObject({ data_limit_bytes: 10 * GB, expires_at: T0 + 60 * DAY, updated_at: T0 + DAY });
    expect(toppedUp(esim(), fiveGb, T0 + 40 * DAY, undefined).expires_at).toBe(T0 + 70 * DAY);
  });

  it('keeps an unlimited eSIM unlimited, and a validity not started yet (null) not started', () => {
    expect(
      toppedUp(esim({ data_limit_bytes: null }), { data_limit_bytes: null, unlimited: true, duration_days: 7 }, T0, undefined).data_limit_bytes,
    ).toBeNull();
    expect(toppedUp(esim({ expires_at: null }), fiveGb, T0, undefined).expires_at).toBeNull();
  });

  it('adds the days of a bundle topped up before a first-use validity started to the days counted from its start', () => {
    const unstarted = esim({ validity_start: 'first_use', expires_at: null, validity_days: 7 });
    expect(toppedUp(unstarted, fiveGb, T0, undefined)).toMatchObject({ expires_at: null, validity_days: 37 });
    expect(toppedUp(unstarted, { ...fiveGb, duration_days: undefined }, T0, undefined).validity_days).toBe(7);
    expect(toppedUp(esim(), fiveGb, T0, undefined).validity_days).toBe(30);
  });

  it('revives: active after data ran out whatever the row said before, the kept state after validity ended', () => {
    const ranOut = esim({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: 5 * GB });
    expect(toppedUp(ranOut, fiveGb, T0 + DAY, 'released')).toMatchObject({ state: 'active', expired_reason: null });
    const ended = esim({ state: 'expired', expired_reason: 'validity_ended' });
    expect(toppedUp(ended, fiveGb, T0 + 31 * DAY, 'suspended')).toMatchObject({ state: 'suspended', expired_reason: null });
    expect(toppedUp(ended, fiveGb, T0 + 31 * DAY, undefined).state).toBe('active');
  });

  it('counts the thresholds already reached against the new limit as sent', () => {
    expect(toppedUp(esim({ data_used_bytes: 5 * GB, thresholds_notified: [50, 80, 100] }), fiveGb, T0, undefined).thresholds_notified).toEqual([50]);
    expect(thresholdsReached(GB, null)).toEqual([]);
  });
});

describe('assertToppable', () => {
  it('refuses a cancelled eSIM with 409 invalid_state_transition, and nothing else', () => {
    expect(apiErrorOf(() => assertToppable({ state: 'expired', expired_reason: 'cancelled' }))).toMatchObject({ code: 'invalid_state_transition' });
    for (const reason of ['data_exhausted', 'validity_ended'] as const)
      expect(() => assertToppable({ state: 'expired', expired_reason: reason })).not.toThrow();
  });
});

describe('bundlesOnEsim', () => {
  it('uses data from the first bundle on: depleted, then active, then queued', () => {
    const second = topup({ id: 'top_2', created_at: T0 + 2 * DAY, previous_expires_at: T0 + 60 * DAY, expires_at: T0 + 90 * DAY });
    const bundles = bundlesOnEsim(esim({ data_limit_bytes: 15 * GB, data_used_bytes: 6 * GB, expires_at: T0 + 90 * DAY }), [topup({}), second], T0 + 3 * DAY);
    expect(bundles.map((b) => [b.topup, b.state, b.data_used_bytes, b.expires_at])).toEqual([
      [null, 'depleted', 5 * GB, T0 + 30 * DAY],
      ['top_1', 'active', 1 * GB, T0 + 60 * DAY],
      ['top_2', 'queued', 0, null],
    ]);
  });

  it('expires a bundle whose window ended with data left, and every bundle of a cancelled eSIM', () => {
    const later = bundlesOnEsim(esim({ data_limit_bytes: 10 * GB, expires_at: T0 + 60 * DAY }), [topup({})], T0 + 31 * DAY);
    expect(later.map((b) => b.state)).toEqual(['expired', 'active']);
    const cancelled = bundlesOnEsim(esim({ state: 'expired', expired_reason: 'cancelled', data_limit_bytes: 10 * GB }), [topup({})], T0 + DAY);
    expect(cancelled.map((b) => b.state)).toEqual(['expired', 'expired']);
  });
});
