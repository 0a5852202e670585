import type { EsimState, ExpiredReason, ProfileReport } from '@connectivity/contracts';
import type { EsimRecord } from './esim.ts';
import type { EsimChange } from './esim-events.ts';
import { crossedThresholds } from './thresholds.ts';
import { expiresFromStart } from './validity.ts';

/** Why a report changed nothing at all (not even what we know of the supplier). */
export type ReportIgnored = 'sandbox' | 'stale' | 'final';

/** What applying a supplier's report to an eSIM does. */
export interface ReportPlan {
  /** The eSIM after the report (the one given when nothing changes). */
  esim: EsimRecord;
  /** The changes to announce, in the order they happened; each is one event. */
  changes: EsimChange[];
  /** Whether the eSIM's row changes (a move, usage, a threshold, the validity end). */
  changed: boolean;
  /** The supplier time to keep: the newest report applied so far. */
  observedAt: number | null;
  ignored?: ReportIgnored;
}

/**
 * How far along the life cycle a report says the profile has come: 0 released, 1 installed
 * (downloaded), 2 active (attached, or data used). `suspended` is never reached by a report: our
 * suspension is the integrator's (PATCH), so a supplier's suspended only says it had been active.
 */
function progressOf(report: ProfileReport): number {
  const usedData = (report.data_used_bytes ?? 0) > 0 || report.expired_reason === 'data_exhausted';
  const byState: Record<EsimState, number> = { released: 0, installed: 1, active: 2, suspended: 2, expired: 0 };
  return Math.max(byState[report.state], usedData ? 2 : 0);
}

/**
 * Applies what the supplier says of a live profile (record 0130's table) to our eSIM, forward
 * only: the states move released → installed → active → expired (a released profile that used
 * data was installed and activated on the way, as sandbox usage does); usage only rises, capped
 * at the limit, and each of the 50/80/100 % thresholds fires once; the supplier's `expired` ends
 * the eSIM with its reason. A suspended eSIM stays suspended (only its usage and expiry apply).
 * A report older than the newest one applied changes nothing, and a report says nothing new the
 * second time: so the same report from a callback and from reconciliation, in whichever order,
 * gives each event once. Pure: the caller holds the eSIM's row lock and writes the result.
 */
export function planSupplierReport(esim: EsimRecord, heldObservedAt: number | null, report: ProfileReport, nowSeconds: number): ReportPlan {
  const nothing = (ignored: ReportIgnored): ReportPlan => ({ esim, changes: [], changed: false, observedAt: heldObservedAt, ignored });
  if (esim.environment !== 'live') return nothing('sandbox');
  if (heldObservedAt !== null && report.observed_at < heldObservedAt) return nothing('stale');
  if (esim.state === 'expired') return nothing('final');

  const changes: EsimChange[] = [];
  let current: EsimRecord = { ...esim, updated_at: nowSeconds };
  const move = (to: EsimState, expired_reason: ExpiredReason | null = null) => {
    const previous_state = current.state;
    current = { ...current, state: to, expired_reason };
    changes.push({ kind: 'state', previous_state, esim: current });
  };

  const progress = progressOf(report);
  let fieldsChanged = false;
  // The validity as the supplier counts it (record 0230), set before any move so that every event
  // carries the eSIM as it is after the report: the supplier's end where it says one; else, for a
  // first-use bundle whose start the supplier reports (active, or data used), that start (or when
  // it was observed) plus the duration, set once.
  const reportedEnd =
    report.expires_at !== null
      ? report.expires_at
      : current.expires_at === null && current.validity_start === 'first_use' && progress >= 2
        ? expiresFromStart(current, report.started_at ?? report.observed_at)
        : null;
  if (reportedEnd !== null && reportedEnd !== current.expires_at) {
    current = { ...current, expires_at: reportedEnd };
    fieldsChanged = true;
  }

  if (current.state === 'released' && progress >= 1) move('installed');
  if (current.state === 'installed' && progress >= 2) move('active');

  const limit = current.data_limit_bytes;
  if (report.data_used_bytes !== null) {
    // Record 0231: while the supplier says the eSIM is not finished, it has data left, whatever the
    // rounding of its answer (Airalo counts whole megabytes): usage stays under the limit, so the
    // 100 % threshold and `data_exhausted` come only with the supplier's word.
    const ceiling = limit === null ? null : report.state === 'expired' ? limit : Math.max(0, limit - 1);
    const reported = ceiling === null ? report.data_used_bytes : Math.min(ceiling, report.data_used_bytes);
    if (reported > current.data_used_bytes) {
      current = { ...current, data_used_bytes: reported };
      fieldsChanged = true;
    }
  }
  if (limit !== null) {
    for (const threshold_percent of crossedThresholds(current.data_used_bytes, limit, current.thresholds_notified)) {
      current = { ...current, thresholds_notified: [...current.thresholds_notified, threshold_percent] };
      changes.push({ kind: 'threshold', threshold_percent, esim: current });
    }
  }
  if (report.state === 'expired') {
    const exhausted = limit !== null && current.data_used_bytes >= limit;
    move('expired', report.expired_reason ?? (exhausted ? 'data_exhausted' : 'validity_ended'));
  }

  const changed = fieldsChanged || changes.length > 0;
  const observedAt = Math.max(heldObservedAt ?? report.observed_at, report.observed_at);
  return { esim: changed ? current : esim, changes, changed, observedAt };
}
