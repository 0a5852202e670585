import { doublingDelayMs } from '@connectivity/platform';

/**
 * How long to wait before the next attempt to release an order's profiles at the supplier,
 * after `attempts` failed ones: doubling from `baseMs`, capped at `maxMs`, so a supplier that is
 * down for hours is asked about once per `maxMs` and never given up on for being down.
 */
export function releaseRetryDelayMs(attempts: number, baseMs: number, maxMs: number): number {
  return doublingDelayMs(attempts, baseMs, maxMs);
}
