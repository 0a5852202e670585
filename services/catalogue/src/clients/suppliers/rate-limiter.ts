import { SupplierError } from './port.ts';

/** At most `limit` calls in any `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

interface Waiter {
  tenant: string;
  deadline: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Lane {
  /** When the calls of the window were let through (ms), oldest first. */
  calls: number[];
  /** Calls waiting for room, per tenant, and the tenants in their turn order. */
  waiting: Map<string, Waiter[]>;
  turn: string[];
  timer?: NodeJS.Timeout | undefined;
}

/**
 * The vendor's documented rate limits, kept on our side (records 0135 and 0162): a sliding window per
 * key; a call waits for room, but never past its own deadline, after which it fails as `throttled`
 * without having been sent (our refusal, which the circuit breaker never counts). While calls wait,
 * room is handed out to the waiting tenants (accounts) in turn, so one account's flood takes its
 * share of the budget, not all of it; a tenant may hold at most `maxQueuedPerTenant` waiting calls
 * per key, and more fail at once. Per process: with several catalogue replicas each keeps its
 * share, which is why the rules are set below the vendor's numbers.
 */
export class ClientRateLimiter {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxQueuedPerTenant: number;

  constructor(options: { maxQueuedPerTenant?: number | undefined } = {}) {
    this.maxQueuedPerTenant = options.maxQueuedPerTenant ?? 20;
  }

  acquire(key: string, rule: RateRule, maxWaitMs: number, what: string, tenant = 'system'): Promise<void> {
    const lane = this.lane(key);
    const now = Date.now();
    prune(lane, rule, now);
    if (lane.waiting.size === 0 && lane.calls.length < rule.limit) {
      lane.calls.push(now);
      return Promise.resolve();
    }
    const freeAt = (lane.calls[0] ?? now) + rule.windowMs;
    const queued = lane.waiting.get(tenant) ?? [];
    if (freeAt > now + maxWaitMs || queued.length >= this.maxQueuedPerTenant) {
      return Promise.reject(new SupplierError('throttled', `${what} would exceed the vendor's rate limit (${rule.limit} per ${rule.windowMs} ms)`));
    }
    return new Promise<void>((resolve, reject) => {
      if (!lane.waiting.has(tenant)) {
        lane.waiting.set(tenant, queued);
        lane.turn.push(tenant);
      }
      queued.push({ tenant, deadline: now + maxWaitMs, resolve, reject: (error) => reject(error) });
      this.schedule(key, lane, rule, what);
    });
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { calls: [], waiting: new Map(), turn: [] };
      this.lanes.set(key, lane);
      // Keys per ICCID come and go: forget idle ones.
      if (this.lanes.size > 10_000) this.prune();
    }
    return lane;
  }

  /** Lets waiting calls through as room frees, one tenant's turn at a time. */
  private schedule(key: string, lane: Lane, rule: RateRule, what: string): void {
    if (lane.timer) return;
    const pump = () => {
      lane.timer = undefined;
      const now = Date.now();
      prune(lane, rule, now);
      while (lane.turn.length > 0 && lane.calls.length < rule.limit) {
        const tenant = lane.turn.shift()!;
        const queue = lane.waiting.get(tenant)!;
        const waiter = queue.shift()!;
        if (queue.length > 0) lane.turn.push(tenant);
        else lane.waiting.delete(tenant);
        if (waiter.deadline < now) {
          waiter.reject(new SupplierError('throttled', `${what} waited past its deadline for room under the vendor's rate limit`));
          continue;
        }
        lane.calls.push(now);
        waiter.resolve();
      }
      if (lane.turn.length > 0) {
        const freeAt = (lane.calls[0] ?? now) + rule.windowMs;
        lane.timer = setTimeout(pump, Math.max(1, freeAt - now));
      }
    };
    const now = Date.now();
    const freeAt = (lane.calls[0] ?? now) + rule.windowMs;
    lane.timer = setTimeout(pump, Math.max(1, freeAt - now));
  }

  private prune(): void {
    const now = Date.now();
    for (const [key, lane] of this.lanes) if (lane.waiting.size === 0 && (lane.calls.at(-1) ?? 0) < now - 60_000) this.lanes.delete(key);
  }
}

function prune(lane: Lane, rule: RateRule, now: number): void {
  while (lane.calls.length > 0 && lane.calls[0]! <= now - rule.windowMs) lane.calls.shift();
}
