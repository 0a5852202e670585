import { USAGE_THRESHOLDS, type UsageThreshold } from '@connectivity/contracts';

/**
 * The thresholds (50, 80, 100 percent) that usage of `used` bytes has reached and that were not
 * notified yet, in ascending order. Reaching counts: exactly half the limit fires 50. Keeping
 * the notified set (rather than comparing before and after) makes each fire once per eSIM.
 */
export function crossedThresholds(used: number, limit: number, notified: readonly number[]): UsageThreshold[] {
  if (limit <= 0) return [];
  // Integer arithmetic: `used * 100 >= limit * percent` avoids rounding at the boundary.
  return USAGE_THRESHOLDS.filter((percent) => !notified.includes(percent) && used * 100 >= limit * percent);
}
