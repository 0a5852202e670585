import { FixedWindowLimiter } from '@connectivity/fake-suppliers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ESIM_GO_LIMIT } from '../src/clients/suppliers/esim-go/api.ts';
import { ClientRateLimiter } from '../src/clients/suppliers/rate-limiter.ts';

/**
 * Our side of a vendor's rate limit (records 0162 and 0278): the vendor counts a call when it
 * arrives, we when we send it, so a window of ours is longer than the vendor's by the spread of
 * transit times it must absorb.
 */
describe('the client-side rate limiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_800_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** `count` calls asked for at once, let through as the limiter allows: when each went (ms). */
  async function sendTimes(limiter: ClientRateLimiter, count: number, tenant = 'system'): Promise<number[]> {
    const start = Date.now();
    const sent: number[] = [];
    for (let i = 0; i < count; i += 1) void limiter.acquire('esim-go', ESIM_GO_LIMIT, 60_000, 'test call', tenant).then(() => sent.push(Date.now() - start));
    while (sent.length < count) await vi.advanceTimersByTimeAsync(5);
    return sent;
  }

  it('counts a call for its window and the slack: the eleventh of ten a second goes 1.1 s after the first', async () => {
    expect((await sendTimes(new ClientRateLimiter({ tenantShare: 1 }), 11))[10]).toBe(1_100);
    // Without the slack, it went at 1.0 s.
    expect((await sendTimes(new ClientRateLimiter({ tenantShare: 1, slackMs: 0 }), 11))[10]).toBe(1_000);
  });

  it('counts a tenant’s share, ours alone, over the bare window: its sixth of five a second goes at 1.0 s', async () => {
    expect(await sendTimes(new ClientRateLimiter({ tenantShare: 0.5 }), 6, 'acct_a')).toEqual([0, 0, 0, 0, 0, 1_000]);
  });

  it('keeps a vendor that counts arrivals in fixed seconds under its limit when one call took 90 ms longer on the way', async () => {
    // 30 calls sent as fast as allowed; each arrives 5 ms after it was sent, but the first 95 ms.
    const arrivalsAt = (sent: number[]) => sent.map((at, i) => at + (i === 0 ? 95 : 5));
    const refusedBy = (arrivals: number[]) => {
      const vendor = new FixedWindowLimiter();
      // The vendor's seconds start 50 ms after our first send: the late call counts in the next one,
      // the calls counted in the order they arrive.
      return arrivals.toSorted((a, b) => a - b).filter((at) => !vendor.hit('ip', ESIM_GO_LIMIT, at + 950).allowed).length;
    };
    const slack = await sendTimes(new ClientRateLimiter({ tenantShare: 1 }), 30);
    expect(refusedBy(arrivalsAt(slack))).toBe(0);
    // The same calls under a window of exactly the vendor's second: the vendor refuses some.
    const bare = await sendTimes(new ClientRateLimiter({ tenantShare: 1, slackMs: 0 }), 30);
    expect(refusedBy(arrivalsAt(bare))).toBeGreaterThan(0);
  });
});
