import { SupplierError } from './port.ts';

/** At most `limit` calls in any `windowMs`. */
export interface RateRule {
  limit: number;
  windowMs: number;
}

/** The spread of transit times a 1 s window absorbs (record 0278): 10 a second becomes 10 per 1.1 s. */
const DEFAULT_SLACK_MS = 100;

interface Waiter {
  deadline: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Lane {
  /** When the calls of the window were let through (ms), oldest first: all of them, and per tenant. */
  calls: number[];
  byTenant: Map<string, number[]>;
  /** Calls waiting for room, per tenant, and the tenants in their turn order. */
  waiting: Map<string, Waiter[]>;
  turn: string[];
  timer?: NodeJS.Timeout | undefined;
}

export interface RateLimiterOptions {
  /** Calls one tenant may have waiting under one rule; more are refused at once. */
  maxQueuedPerTenant?: number | undefined;
  /** The part of a rule's budget one tenant may use in any window (0 to 1]. */
  tenantShare?: number | undefined;
  /** How much longer than its window a call is counted (ms): the spread of transit times (record 0278). */
  slackMs?: number | undefined;
}

/**
 * The vendor's documented rate limits, kept on our side (records 0135 and 0162): a sliding window per
 * key. Each tenant (the account a call is for, or `system`) may use at most `tenantShare` of a
 * window's budget, so one account's burst always leaves room for the others; a call waits for room,
 * in its tenant's turn, but never past its own deadline, after which it fails as `throttled` without
 * having been sent (our refusal, which the circuit breaker never counts). A tenant may have at most
 * `maxQueuedPerTenant` calls waiting per key; more fail at once. Per process: with several catalogue
 * replicas each keeps its share, which is why the rules are set below the vendor's numbers.
 *
 * Against the vendor's limit a call is counted `slackMs` longer than the window (record 0278): we
 * stamp a call when we send it, the vendor counts it when it arrives, and a call that took longer on
 * the way than the one ten calls after it would otherwise land in the same vendor window, the
 * eleventh of ten. A tenant's share is ours alone, counted over the bare window.
 */
export class ClientRateLimiter {
  private readonly lanes = new Map<string, Lane>();
  private readonly maxQueuedPerTenant: number;
  private readonly tenantShare: number;
  private readonly slackMs: number;

  constructor(options: RateLimiterOptions = {}) {
    this.maxQueuedPerTenant = options.maxQueuedPerTenant ?? 20;
    this.tenantShare = options.tenantShare ?? 0.5;
    this.slackMs = options.slackMs ?? DEFAULT_SLACK_MS;
  }

  acquire(key: string, rule: RateRule, maxWaitMs: number, what: string, tenant = 'system'): Promise<void> {
    const lane = this.lane(key);
    const now = Date.now();
    prune(lane, rule, this.slackMs, now);
    if (!lane.waiting.has(tenant) && this.hasRoom(lane, rule, tenant)) {
      take(lane, tenant, now);
      return Promise.resolve();
    }
    const queued = lane.waiting.get(tenant) ?? [];
    if (this.freeAt(lane, rule, tenant, now) > now + maxWaitMs || queued.length >= this.maxQueuedPerTenant) {
      return Promise.reject(new SupplierError('throttled', `${what} would exceed the vendor's rate limit (${rule.limit} per ${rule.windowMs} ms)`));
    }
    return new Promise<void>((resolve, reject) => {
      if (!lane.waiting.has(tenant)) {
        lane.waiting.set(tenant, queued);
        lane.turn.push(tenant);
      }
      queued.push({ deadline: now + maxWaitMs, resolve, reject });
      this.schedule(lane, rule, what, now);
    });
  }

  private tenantLimit(rule: RateRule): number {
    return Math.max(1, Math.ceil(rule.limit * this.tenantShare));
  }

  private hasRoom(lane: Lane, rule: RateRule, tenant: string): boolean {
    return lane.calls.length < rule.limit && (lane.byTenant.get(tenant)?.length ?? 0) < this.tenantLimit(rule);
  }

  /** The earliest time a call of `tenant` could be let through, as far as the window says. */
  private freeAt(lane: Lane, rule: RateRule, tenant: string, now: number): number {
    const own = lane.byTenant.get(tenant) ?? [];
    const globalFree = lane.calls.length < rule.limit ? now : (lane.calls[lane.calls.length - rule.limit] ?? now) + rule.windowMs + this.slackMs;
    const tenantFree = own.length < this.tenantLimit(rule) ? now : (own[own.length - this.tenantLimit(rule)] ?? now) + rule.windowMs;
    return Math.max(globalFree, tenantFree);
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { calls: [], byTenant: new Map(), waiting: new Map(), turn: [] };
      this.lanes.set(key, lane);
      // Keys per ICCID come and go: forget idle ones.
      if (this.lanes.size > 10_000) this.prune();
    }
    return lane;
  }

  /** Lets waiting calls through as room frees, one tenant's turn at a time, skipping tenants at their share. */
  private schedule(lane: Lane, rule: RateRule, what: string, now: number): void {
    if (lane.timer) return;
    const pump = () => {
      lane.timer = undefined;
      const at = Date.now();
      prune(lane, rule, this.slackMs, at);
      for (let looked = 0; lane.turn.length > 0 && lane.calls.length < rule.limit && looked < lane.turn.length;) {
        const tenant = lane.turn.shift()!;
        const queue = lane.waiting.get(tenant)!;
        const waiter = queue[0]!;
        if (waiter.deadline < at) {
          queue.shift();
          waiter.reject(new SupplierError('throttled', `${what} waited past its deadline for room under the vendor's rate limit`));
        } else if (this.hasRoom(lane, rule, tenant)) {
          queue.shift();
          take(lane, tenant, at);
          waiter.resolve();
          looked = 0;
        } else {
          looked += 1;
        }
        if (queue.length > 0) lane.turn.push(tenant);
        else lane.waiting.delete(tenant);
      }
      if (lane.turn.length > 0) this.schedule(lane, rule, what, at);
    };
    const next = Math.min(...lane.turn.map((tenant) => this.freeAt(lane, rule, tenant, now)));
    lane.timer = setTimeout(pump, Math.max(1, next - now));
  }

  private prune(): void {
    const now = Date.now();
    for (const [key, lane] of this.lanes) if (lane.waiting.size === 0 && (lane.calls.at(-1) ?? 0) < now - 60_000) this.lanes.delete(key);
  }
}

function take(lane: Lane, tenant: string, at: number): void {
  lane.calls.push(at);
  const own = lane.byTenant.get(tenant) ?? [];
  own.push(at);
  lane.byTenant.set(tenant, own);
}

function prune(lane: Lane, rule: RateRule, slackMs: number, now: number): void {
  const cutoff = now - rule.windowMs;
  while (lane.calls.length > 0 && lane.calls[0]! <= cutoff - slackMs) lane.calls.shift();
  for (const [tenant, own] of lane.byTenant) {
    while (own.length > 0 && own[0]! <= cutoff) own.shift();
    if (own.length === 0) lane.byTenant.delete(tenant);
  }
}
