import { ApiError, type EsimState, type ExpiredReason, type UsageThreshold } from '@connectivity/contracts';
import { crossedThresholds } from './thresholds.ts';
import { startSandboxValidity, type ValiditySubject } from './validity.ts';

/** The part of an eSIM that usage reads and changes. */
export interface UsageSubject extends Partial<ValiditySubject> {
  state: EsimState;
  expired_reason: ExpiredReason | null;
  data_used_bytes: number;
  data_limit_bytes: number | null;
  /** Thresholds already notified, so each fires once per eSIM. */
  thresholds_notified: number[];
}

/** One consequence of a usage, in the order it happens; each becomes one event. */
export type UsageStep<S extends UsageSubject> =
  { kind: 'state'; previous_state: EsimState; esim: S } | { kind: 'threshold'; threshold_percent: UsageThreshold; esim: S };

export interface UsageOutcome<S extends UsageSubject> {
  esim: S;
  steps: UsageStep<S>[];
}

/**
 * Applies `bytes` of usage (record 0252): a released or installed
 * eSIM is first installed and activated, usage is cut off at the limit, each threshold fires
 * once in order, and reaching the limit expires the eSIM (`data_exhausted`). Each step carries the eSIM as it
 * was right after that step. Suspended and expired eSIMs take no usage.
 */
export function applyUsage<S extends UsageSubject>(esim: S, bytes: number, nowSeconds?: number): UsageOutcome<S> {
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new ApiError('invalid_parameter', { param: 'bytes', message: '`bytes` must be an integer of at least 1.' });
  }
  if (esim.state === 'suspended' || esim.state === 'expired') throw usageRefused(esim.state);

  const steps: UsageStep<S>[] = [];
  let current: S = esim;
  const move = (to: EsimState, expired_reason: ExpiredReason | null = null) => {
    const previous_state = current.state;
    current = { ...current, state: to, expired_reason };
    steps.push({ kind: 'state', previous_state, esim: current });
  };

  if (current.state === 'released') move('installed');
  if (current.state === 'installed') {
    // The simulated first use starts a sandbox `first_use` validity (record 0230); the activation carries it.
    if (nowSeconds !== undefined) current = startSandboxValidity(current, nowSeconds);
    move('active');
  }

  const before = current.data_used_bytes;
  const limit = current.data_limit_bytes;
  const after = limit === null ? before + bytes : Math.min(limit, before + bytes);
  current = { ...current, data_used_bytes: after };

  if (limit !== null) {
    const crossed = crossedThresholds(after, limit, current.thresholds_notified);
    for (const threshold_percent of crossed) {
      current = { ...current, thresholds_notified: [...current.thresholds_notified, threshold_percent] };
      steps.push({ kind: 'threshold', threshold_percent, esim: current });
    }
    if (after >= limit) move('expired', 'data_exhausted');
  }
  return { esim: current, steps };
}

/** Usage on a suspended or expired eSIM: 400 `invalid_parameter` on `esim` (record 0252). */
export function usageRefused(state: 'suspended' | 'expired'): ApiError {
  return new ApiError('invalid_parameter', {
    param: 'esim',
    message: `The eSIM is \`${state}\` and takes no usage; only a released, installed or active eSIM does.`,
  });
}
