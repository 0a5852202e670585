/** A rate-limit decision as the headers need it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1 while a window is open). */
  resetSeconds: number;
}

/**
 * The headers of record 0255: the IETF draft pair (RateLimit-Policy, RateLimit)
 * and the widely used RateLimit-Limit/-Remaining/-Reset.
 */
export function rateLimitHeaders(state: RateLimitState, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Policy': `"default";q=${state.limit};w=${windowSeconds}`,
    RateLimit: `"default";r=${state.remaining};t=${state.resetSeconds}`,
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}

export const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
