export interface RateLimitRule {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
}

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current window ends (epoch ms). */
  resetAt: number;
}

/** Fixed-window counters, the scheme both vendors describe (per key: token, ICCID, client, IP). */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  hit(key: string, rule: RateLimitRule, now: number, cost = 1): RateLimitVerdict {
    const start = Math.floor(now / rule.windowMs) * rule.windowMs;
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.count + cost <= rule.limit;
    if (allowed) window.count += cost;
    return { allowed, limit: rule.limit, remaining: Math.max(0, rule.limit - window.count), resetAt: start + rule.windowMs };
  }

  clear(): void {
    this.windows.clear();
  }
}
