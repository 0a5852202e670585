/**
 * When a failed webhook delivery is tried again (record 0253): the Standard Webhooks
 * schedule, spread by jitter so endpoints that failed together do not all retry in the same
 * instant, and never sooner than a `Retry-After` the receiver asked for.
 */
export interface RetryPolicy {
  /** Delay before retry n (index n-1), in ms; its length + 1 is the number of attempts. */
  scheduleMs: readonly number[];
  /** Each delay is moved by up to this fraction either way (0.2 = ±20 %). */
  jitter: number;
  /** A receiver's `Retry-After` is honoured up to this long. */
  maxRetryAfterMs: number;
}

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h: 10 attempts over about 3 days. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

export const maxAttempts = (policy: RetryPolicy): number => policy.scheduleMs.length + 1;

/**
 * The delay before the next attempt after attempt `attempt` (1-based) failed, or null when that
 * was the last one. `random` is injectable so the jitter can be pinned in tests.
 */
export function nextRetryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | null {
  const base = policy.scheduleMs[attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.max(0, Math.round(base * (1 + policy.jitter * (2 * random() - 1))));
  if (retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}
