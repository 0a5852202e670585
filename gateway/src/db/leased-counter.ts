import type { Redis } from 'ioredis';

/** What one lease from the shared counter came back with. */
export interface Lease {
  /** The window's count after this lease (every instance's leases, refused requests included). */
  count: number;
  /** Milliseconds until the window (the counter's key) expires. */
  msLeft: number;
}

/** The shared store a `LeasedCounter` takes its tokens from: one atomic increment per lease. */
export type LeaseStore = (bucket: string, tokens: number, windowMs: number) => Promise<Lease>;

// INCRBY, and the window's expiry set by whoever opens it, in one atomic step; a key left without
// an expiry (never, but cheap to guard) gets one rather than counting forever.
const LEASE_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return { count, ttl }`;

/** Leases from Redis: one EVALSHA (the script is loaded once) per lease. */
export function redisLeaseStore(redis: Redis, prefix: string): LeaseStore {
  redis.defineCommand('connectivityLease', { numberOfKeys: 1, lua: LEASE_SCRIPT });
  const lease = (redis as unknown as { connectivityLease(key: string, tokens: number, windowMs: number): Promise<[number, number]> }).connectivityLease.bind(
    redis,
  );
  return async (bucket, tokens, windowMs) => {
    const [count, msLeft] = await lease(`${prefix}:${bucket}`, tokens, windowMs);
    return { count, msLeft };
  };
}

/** At most this many tokens are taken at once, so an instance never sits on much of a budget. */
export const MAX_LEASE = 16;
/** A lease takes at most this share of what is left of the budget. */
const LEASE_SHARE = 8;

export interface LeasedDecision {
  allowed: boolean;
  /** What is left of the budget as this instance knows it (exact on a single instance). */
  remaining: number;
  msLeft: number;
}

interface BucketState {
  /** When this window ends, on this process's clock. */
  endsAt: number;
  /** The shared count after this instance's last lease. */
  count: number;
  /** Tokens leased and not yet spent here. */
  tokens: number;
  /** The lease being taken, which concurrent requests wait for rather than taking their own. */
  leasing?: Promise<void> | undefined;
}

/**
 * A fixed-window counter shared by every gateway instance, where an instance takes tokens from
 * the shared store in small leases and spends them in memory: a request costs a round trip only
 * when its instance has no token left. It never grants more than the budget in a window, however
 * many instances there are (every token comes from one atomic count); a lease takes at most
 * `MAX_LEASE` tokens and an eighth of what is left, one token at a time near the end, so a single
 * instance is exact and, across N instances, a client can be refused early by at most the tokens
 * the other instances hold unspent (fewer than N × `MAX_LEASE`, and never more than an eighth of
 * what was left when they took them). Buckets whose budget is spent are refused in memory until
 * the window ends.
 */
export class LeasedCounter {
  private readonly buckets = new Map<string, BucketState>();
  private sweptAt = 0;

  private readonly store: LeaseStore;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(store: LeaseStore, windowMs: number, now: () => number = Date.now) {
    this.store = store;
    this.windowMs = windowMs;
    this.now = now;
  }

  async consume(bucket: string, limit: number): Promise<LeasedDecision> {
    for (;;) {
      const now = this.now();
      this.sweep(now);
      const state = this.buckets.get(bucket);
      if (state && state.endsAt > now) {
        if (state.tokens > 0) {
          state.tokens -= 1;
          return { allowed: true, remaining: this.remainingOf(state, limit), msLeft: state.endsAt - now };
        }
        // Spent as far as the shared count says: refused without asking again this window.
        if (state.count >= limit) return { allowed: false, remaining: 0, msLeft: state.endsAt - now };
        if (state.leasing) {
          await state.leasing;
          continue;
        }
      }
      await this.lease(bucket, limit, state && state.endsAt > now ? state : undefined);
    }
  }

  /** Takes a lease; concurrent requests for the bucket wait on it. */
  private lease(bucket: string, limit: number, current: BucketState | undefined): Promise<void> {
    const left = current ? limit - current.count : limit;
    const size = Math.max(1, Math.min(MAX_LEASE, Math.floor(left / LEASE_SHARE)));
    const placeholder: BucketState = current ?? { endsAt: Number.POSITIVE_INFINITY, count: 0, tokens: 0 };
    if (!current) this.buckets.set(bucket, placeholder);
    const leasing = this.store(bucket, size, this.windowMs).then(
      ({ count, msLeft }) => {
        const before = count - size;
        placeholder.tokens += Math.max(0, Math.min(size, limit - before));
        placeholder.count = count;
        placeholder.endsAt = this.now() + msLeft;
      },
      (error: unknown) => {
        // Nothing was learnt: the next request asks again.
        if (!current) this.buckets.delete(bucket);
        throw error;
      },
    );
    placeholder.leasing = leasing.finally(() => {
      placeholder.leasing = undefined;
    });
    // Waiters only need to know it settled; the leaser alone sees the failure.
    placeholder.leasing.catch(() => undefined);
    return leasing;
  }

  /** The budget left as this instance knows it: the shared count, less its own unspent tokens. */
  private remainingOf(state: BucketState, limit: number): number {
    return Math.max(0, Math.min(limit, limit - state.count + state.tokens));
  }

  /** Forgets ended windows now and then, so idle keys do not pile up. */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.windowMs) return;
    this.sweptAt = now;
    for (const [bucket, state] of this.buckets) if (state.endsAt <= now && !state.leasing) this.buckets.delete(bucket);
  }
}
