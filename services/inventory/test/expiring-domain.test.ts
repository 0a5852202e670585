import { describe, expect, it } from 'vitest';
import type { EsimRecord } from '../src/domain/esim.ts';
import { dueExpiringMark, vendorExpiringMark, type ExpiringNotified } from '../src/domain/expiring.ts';

/** When `esim.expiring` is due (record 0236): the marks, once each per end, the nearest only, never when expired. */
const DAY = 86_400;
const BOUGHT = 1_795_000_000;

const esim = (over: Partial<EsimRecord> = {}): EsimRecord => ({
  id: 'esim_01jd8x7k2m9q4r5s6t7v8w9xyz',
  account_id: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
  environment: 'test',
  order_id: 'ord_01jd8x7k2m9q4r5s6t7v8w9xyz',
  iccid: '8988247000000000017',
  state: 'active',
  expired_reason: null,
  bundle: 'esim_1GB_7D_US',
  data_used_bytes: 0,
  data_limit_bytes: 1_000_000_000,
  thresholds_notified: [],
  activation_code: 'LPA:1$smdp.example$MATCH',
  smdp_address: 'smdp.example',
  matching_id: 'MATCH',
  validity_start: 'purchase',
  validity_days: 7,
  expires_at: BOUGHT + 7 * DAY,
  install_by: null,
  created_at: BOUGHT,
  updated_at: BOUGHT,
  metadata: {},
  test_clock: null,
  ...over,
});
const none: ExpiringNotified = { for: null, days: null };
const sent = (end: number, days: 3 | 1): ExpiringNotified => ({ for: end, days });

describe('dueExpiringMark', () => {
  const end = BOUGHT + 7 * DAY;

  it('is 3 from 3 days before the end, then 1 from 1 day before, and nothing before, after the end or once expired', () => {
    expect(dueExpiringMark(esim(), none, end - 3 * DAY - 1)).toBeNull();
    expect(dueExpiringMark(esim(), none, end - 3 * DAY)).toBe(3);
    expect(dueExpiringMark(esim(), sent(end, 3), end - 2 * DAY)).toBeNull();
    expect(dueExpiringMark(esim(), sent(end, 3), end - DAY)).toBe(1);
    expect(dueExpiringMark(esim(), sent(end, 1), end - 60)).toBeNull();
    expect(dueExpiringMark(esim(), none, end)).toBeNull();
    expect(dueExpiringMark(esim({ state: 'expired', expired_reason: 'cancelled' }), none, end - DAY)).toBeNull();
    expect(dueExpiringMark(esim({ expires_at: null }), none, end)).toBeNull();
  });

  it('sends only the nearer mark when both were reached at once, and no 3 after a 1', () => {
    expect(dueExpiringMark(esim(), none, end - 600)).toBe(1);
    expect(dueExpiringMark(esim(), sent(end, 1), end - 3 * DAY + 600)).toBeNull();
  });

  it('skips a mark that falls at or before the purchase (a 1-day bundle is not "1 day left" when bought)', () => {
    expect(dueExpiringMark(esim({ validity_days: 1, expires_at: BOUGHT + DAY }), none, BOUGHT + 600)).toBeNull();
    expect(dueExpiringMark(esim({ validity_days: 3, expires_at: BOUGHT + 3 * DAY }), none, BOUGHT + 600)).toBeNull();
    expect(dueExpiringMark(esim({ validity_days: 3, expires_at: BOUGHT + 3 * DAY }), none, BOUGHT + 2 * DAY)).toBe(1);
  });

  it('arms both marks again for a new end (a top-up), not for an end corrected by less than a day', () => {
    const later = end + 15 * DAY;
    expect(dueExpiringMark(esim({ expires_at: later }), sent(end, 1), later - 3 * DAY)).toBe(3);
    const corrected = end + 3_600;
    expect(dueExpiringMark(esim({ expires_at: corrected }), sent(end, 3), corrected - 3 * DAY + 60)).toBeNull();
    expect(dueExpiringMark(esim({ expires_at: end - 3_600 }), sent(end, 3), end - 3 * DAY)).toBeNull();
  });
});

describe('vendorExpiringMark', () => {
  it('passes a vendor’s notice on once per mark, never a looser one after a nearer, never for an expired eSIM', () => {
    const end = BOUGHT + 7 * DAY;
    expect(vendorExpiringMark(esim(), none, 3)).toBe(3);
    expect(vendorExpiringMark(esim(), sent(end, 3), 3)).toBeNull();
    expect(vendorExpiringMark(esim(), sent(end, 3), 1)).toBe(1);
    expect(vendorExpiringMark(esim(), sent(end, 1), 3)).toBeNull();
    expect(vendorExpiringMark(esim({ expires_at: null }), none, 3)).toBe(3);
    expect(vendorExpiringMark(esim({ expires_at: null }), { for: null, days: 3 }, 3)).toBeNull();
    expect(vendorExpiringMark(esim({ state: 'expired', expired_reason: 'validity_ended' }), none, 1)).toBeNull();
  });
});
