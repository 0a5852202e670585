import { testClockSchema } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { apiErrorOf } from './api-error-of.ts';
import {
  ADVANCE_LEASE_MS,
  assertCanAdvance,
  assertSandboxCaller,
  clockInstant,
  effectiveStatus,
  expiryTimeOnClock,
  toPublicTestClock,
  type TestClockRecord,
} from '../src/domain/test-clock.ts';

const NOW_MS = 1_795_000_000_000;
const clock: TestClockRecord = {
  id: 'clock_01jd8x7k2m9q4r5s6t7v8w9xyz',
  account_id: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
  environment: 'test',
  name: 'renewals',
  frozen_time: 1_798_761_600,
  status: 'ready',
  advance_token: null,
  advance_to: null,
  advance_lease_until: null,
  created_at: 1_795_000_000,
  deleted_at: null,
};
const advancing = (leaseUntil: number): TestClockRecord => ({
  ...clock,
  status: 'advancing',
  advance_token: 'token',
  advance_to: clock.frozen_time + 60,
  advance_lease_until: leaseUntil,
});

describe('a test clock', () => {
  it('shows the public fields only, in the contract’s shape', () => {
    const shown = toPublicTestClock(clock, NOW_MS);
    expect(shown).toEqual({ object: 'test_clock', id: clock.id, name: 'renewals', frozen_time: 1_798_761_600, status: 'ready', created_at: 1_795_000_000 });
    expect(testClockSchema.parse(shown)).toEqual(shown);
  });

  it('is advancing only while the advance’s lease runs; a lapsed advance never happened', () => {
    expect(effectiveStatus(clock, NOW_MS)).toBe('ready');
    expect(effectiveStatus(advancing(NOW_MS + 1), NOW_MS)).toBe('advancing');
    expect(effectiveStatus(advancing(NOW_MS), NOW_MS)).toBe('ready');
    expect(effectiveStatus(advancing(NOW_MS - ADVANCE_LEASE_MS), NOW_MS)).toBe('ready');
  });

  it('only moves forward: an earlier or equal time is invalid_parameter on frozen_time', () => {
    for (const target of [clock.frozen_time, clock.frozen_time - 1, 0]) {
      expect(apiErrorOf(() => assertCanAdvance(clock, target, NOW_MS))).toMatchObject({ code: 'invalid_parameter', param: 'frozen_time', status: 400 });
    }
    expect(() => assertCanAdvance(clock, clock.frozen_time + 1, NOW_MS)).not.toThrow();
  });

  it('takes one advance at a time, and a lapsed one is taken over', () => {
    const error = apiErrorOf(() => assertCanAdvance(advancing(NOW_MS + 1_000), clock.frozen_time + 3600, NOW_MS));
    expect(error).toMatchObject({ code: 'invalid_state_transition', status: 409 });
    expect(error.param).toBeUndefined();
    expect(() => assertCanAdvance(advancing(NOW_MS - 1), clock.frozen_time + 3600, NOW_MS)).not.toThrow();
  });

  it('dates an expiry during an advance at the eSIM’s expires_at, never before the clock’s time', () => {
    expect(expiryTimeOnClock(1_798_800_000, 1_798_761_600)).toBe(1_798_800_000);
    expect(expiryTimeOnClock(1_798_700_000, 1_798_761_600)).toBe(1_798_761_600);
    expect(clockInstant(1_798_761_600).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('is for test keys only, naming the field when one is given', () => {
    expect(() => assertSandboxCaller('test')).not.toThrow();
    expect(apiErrorOf(() => assertSandboxCaller('live'))).toMatchObject({ code: 'live_key_test_resource', status: 403 });
    expect(apiErrorOf(() => assertSandboxCaller('live', 'test_clock'))).toMatchObject({ code: 'live_key_test_resource', param: 'test_clock' });
  });
});
