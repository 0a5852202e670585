import { ApiError, USAGE_THRESHOLDS, type EsimBundle, type EsimBundleState, type EsimState, type InternalBundle, type Topup } from '@connectivity/contracts';
import type { EsimRecord } from './esim.ts';
import { dataLimitBytes } from './order.ts';

const SECONDS_PER_DAY = 86_400;

/** A top-up as inventory keeps it (record 0240). */
export interface TopupRecord {
  id: string;
  account_id: string;
  environment: EsimRecord['environment'];
  esim_id: string;
  bundle: string;
  /** The data it added; null for an unlimited bundle. */
  data_limit_bytes: number | null;
  duration_days: number | null;
  price_cents: number;
  currency: 'USD';
  status: Topup['status'];
  /** The eSIM's `expires_at` before and after the top-up: the bundle's window (record 0241). */
  previous_expires_at: number | null;
  expires_at: number | null;
  created_at: number;
}

export function toPublicTopup(record: TopupRecord): Topup {
  return {
    object: 'topup',
    id: record.id,
    esim: record.esim_id,
    bundle: record.bundle,
    price_cents: record.price_cents,
    currency: record.currency,
    status: record.status,
    simulated: record.environment === 'test',
    created_at: record.created_at,
  };
}

/** Why an eSIM cannot be topped up: only a cancelled eSIM is final for top-ups (record 0258). */
export function assertToppable(esim: Pick<EsimRecord, 'state' | 'expired_reason'>): void {
  if (esim.state === 'expired' && esim.expired_reason === 'cancelled') {
    throw new ApiError('invalid_state_transition', {
      message: 'This eSIM was cancelled: a cancelled eSIM cannot be topped up. Buy a new eSIM with POST /v1/esim.',
      detail: 'current state: expired (cancelled); a top-up revives only an eSIM expired by data_exhausted or validity_ended',
    });
  }
}

/** Whether a top-up brings the eSIM back from `expired` (record 0243). */
export const revives = (esim: Pick<EsimRecord, 'state' | 'expired_reason'>): boolean =>
  esim.state === 'expired' && (esim.expired_reason === 'data_exhausted' || esim.expired_reason === 'validity_ended');

/** The thresholds usage has already reached against a limit: not announced again after a top-up raised it (record 0241). */
export function thresholdsReached(used: number, limit: number | null): number[] {
  if (limit === null || limit <= 0) return [];
  return USAGE_THRESHOLDS.filter((percent) => used * 100 >= limit * percent);
}

/**
 * The eSIM after `bundle` is added at `now` (record 0241): its data added to the limit (an unlimited eSIM
 * stays unlimited), validity moved on by the bundle's duration from the later of the old end and now
 * (the new bundle is queued behind the current one; a validity not started yet gains the bundle's days
 * from its start), and, when it had expired for want of data or time,
 * back in the state it had before (`active` after its data ran out; else `before`, or `active` if
 * unknown), `expired_reason` null.
 */
export function toppedUp(
  esim: EsimRecord,
  bundle: Pick<InternalBundle, 'data_limit_bytes' | 'unlimited' | 'duration_days'>,
  now: number,
  before: Exclude<EsimState, 'expired'> | undefined,
): EsimRecord {
  const added = dataLimitBytes(bundle);
  const limit = esim.data_limit_bytes === null ? null : esim.data_limit_bytes + (added ?? 0);
  // A validity not started yet (null: a first-use bundle not used) starts at first use; the bundle queued
  // behind it then runs after it, so its days are added to the days counted from that start (record 0241).
  const unstarted = esim.expires_at === null;
  const expires =
    bundle.duration_days === undefined || esim.expires_at === null ? esim.expires_at : Math.max(esim.expires_at, now) + bundle.duration_days * SECONDS_PER_DAY;
  const validityDays =
    unstarted && bundle.duration_days !== undefined && esim.validity_days !== null ? esim.validity_days + bundle.duration_days : esim.validity_days;
  const revived = revives(esim);
  // Data is used only by an active eSIM, so one that ran out was active (usage on an unused eSIM moves
  // it through installed and active in the one write that may expire it, record 0243).
  const back = esim.expired_reason === 'data_exhausted' ? 'active' : (before ?? 'active');
  return {
    ...esim,
    data_limit_bytes: limit,
    expires_at: expires,
    validity_days: validityDays,
    thresholds_notified: thresholdsReached(esim.data_used_bytes, limit),
    state: revived ? back : esim.state,
    expired_reason: revived ? null : esim.expired_reason,
    updated_at: now,
  };
}

/**
 * The bundles on an eSIM, in the order they are used, each with its state (record 0241): data is used
 * from the first bundle on; a bundle whose share of the data is used is `depleted`, one whose window
 * has ended (or whose eSIM was cancelled) with data left `expired`; the first of the rest is `active`,
 * the others `queued`.
 */
export function bundlesOnEsim(esim: EsimRecord, topups: readonly TopupRecord[], now: number): EsimBundle[] {
  const added = topups.reduce((sum, topup) => sum + (topup.data_limit_bytes ?? 0), 0);
  const layers = [
    {
      bundle: esim.bundle ?? '',
      topup: null as string | null,
      limit: esim.data_limit_bytes === null ? null : Math.max(0, esim.data_limit_bytes - added),
      end: topups[0] ? topups[0].previous_expires_at : esim.expires_at,
      created_at: esim.created_at,
    },
    ...topups.map((topup, i) => ({
      bundle: topup.bundle,
      topup: topup.id,
      limit: topup.data_limit_bytes,
      // A bundle's window ends where the next one's top-up moved the eSIM's validity on from.
      end: i + 1 < topups.length ? (topups[i + 1]?.previous_expires_at ?? null) : esim.expires_at,
      created_at: topup.created_at,
    })),
  ];
  const cancelled = esim.state === 'expired' && esim.expired_reason === 'cancelled';
  let usedBefore = 0;
  let activeFound = false;
  return layers.map((layer) => {
    const used =
      layer.limit === null ? (activeFound ? 0 : esim.data_used_bytes - usedBefore) : Math.min(layer.limit, Math.max(0, esim.data_used_bytes - usedBefore));
    usedBefore += layer.limit ?? 0;
    let state: EsimBundleState;
    if (layer.limit !== null && used >= layer.limit) state = 'depleted';
    else if (cancelled || (layer.end !== null && layer.end <= now)) state = 'expired';
    else if (!activeFound) state = 'active';
    else state = 'queued';
    if (state === 'active') activeFound = true;
    return {
      object: 'esim_bundle',
      bundle: layer.bundle,
      topup: layer.topup,
      state,
      data_limit_bytes: layer.limit,
      data_used_bytes: Math.max(0, used),
      expires_at: state === 'queued' ? null : layer.end,
      created_at: layer.created_at,
    };
  });
}
