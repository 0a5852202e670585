/**
 * The wait before attempt `attempt + 1` of something that keeps failing: `baseMs` after the
 * first failure, doubling with each one after, never more than `maxMs`. One rule for every
 * backoff of the services (relay, workers, releases, endpoint circuits, the supervisor), so a
 * reader learns it once.
 */
export function doublingDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 30));
}

/** The same wait with jitter: a random delay in [d/2, d], so retries of many callers spread out. */
export function jitteredDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  const ceiling = doublingDelayMs(attempt, baseMs, maxMs);
  return Math.max(1, Math.round(ceiling / 2 + Math.random() * (ceiling / 2)));
}
