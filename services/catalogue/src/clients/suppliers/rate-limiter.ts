import { setTimeout as sleep } from 'node:timers/promises';
import { SupplierError } from './port.ts';

/** At most `limit` calls in any `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

/**
 * The vendor's documented rate limits, kept on our side (docs/decisions/0135-client-side-rate-limits.md):
 * a sliding window per key; a call waits for room, but never past its own deadline, after which
 * it fails as `unavailable` without having been sent. Per process: with several catalogue
 * replicas each keeps its share, which is why the rules are set below the vendor's numbers.
 */
export class ClientRateLimiter {
  private readonly windows = new Map<string, number[]>();

  async acquire(key: string, rule: RateRule, maxWaitMs: number, what: string): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      const now = Date.now();
      const recent = (this.windows.get(key) ?? []).filter((at) => at > now - rule.windowMs);
      if (recent.length < rule.limit) {
        recent.push(now);
        this.windows.set(key, recent);
        if (this.windows.size > 10_000) this.prune(now);
        return;
      }
      this.windows.set(key, recent);
      const freeAt = recent[0]! + rule.windowMs;
      if (freeAt > deadline) throw new SupplierError('unavailable', `${what} would exceed the vendor's rate limit (${rule.limit} per ${rule.windowMs} ms)`);
      await sleep(Math.max(1, freeAt - now));
    }
  }

  /** Keys per ICCID come and go: forget those with no call in the last minute. */
  private prune(now: number): void {
    for (const [key, calls] of this.windows) if ((calls.at(-1) ?? 0) < now - 60_000) this.windows.delete(key);
  }
}
