import type { ProfileReport } from '@connectivity/contracts';
import { AIRALO_LIMITS, AIRALO_MB, airaloTime, usageAnswerSchema, type AiraloUsage } from './api.ts';
import { read, type AiraloSession } from './session.ts';
import { withKnownIccid } from '../vendor-iccid.ts';

/**
 * Airalo's usage in our terms (docs/decisions/0130-vendor-status-mapping.md). Airalo reports no
 * install: a profile is `released` until its package starts (ACTIVE, the first network attach
 * under the first-usage policy).
 */
export function airaloReport(iccid: string, usage: AiraloUsage, observedAt: number): ProfileReport {
  const unlimited = usage.is_unlimited === true || (usage.total ?? 0) <= 0;
  const limit = unlimited ? null : Math.round((usage.total ?? 0) * AIRALO_MB);
  const used =
    unlimited || usage.remaining === null || usage.remaining === undefined ? null : Math.max(0, Math.round(((usage.total ?? 0) - usage.remaining) * AIRALO_MB));
  const expiresAt = airaloTime(usage.expired_at) ?? null;
  // Airalo sends its own `3days`/`1days` notices: inventory's clock sends no `esim.expiring` for its eSIMs (record 0236).
  const base = { iccid, data_limit_bytes: limit, observed_at: observedAt, vendor_notices_expiry: true };
  switch (usage.status) {
    case 'ACTIVE':
      return { ...base, state: 'active', expired_reason: null, data_used_bytes: used, expires_at: expiresAt };
    case 'FINISHED':
      return { ...base, state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit ?? used, expires_at: expiresAt };
    case 'EXPIRED':
    case 'RECYCLED':
      return { ...base, state: 'expired', expired_reason: 'validity_ended', data_used_bytes: used, expires_at: expiresAt };
    default:
      // NOT_ACTIVE, UNKNOWN or a status Airalo adds later: nothing to move (reports only move forward).
      return { ...base, state: 'released', expired_reason: null, data_used_bytes: null, expires_at: null };
  }
}

/** The usage of a profile and the form of its ICCID Airalo knows. */
export function usageOf(session: AiraloSession, iccid: string): Promise<{ usage: AiraloUsage; vendorIccid: string }> {
  return withKnownIccid(session.iccids, 'airalo', iccid, async (candidate) => {
    const answer = await session.call({
      operation: 'sim_usage',
      method: 'GET',
      path: `/sims/${encodeURIComponent(candidate)}/usage`,
      idempotent: true,
      limits: [
        { key: `usage:${candidate}`, rule: AIRALO_LIMITS.usagePerIccid },
        { key: 'usage', rule: AIRALO_LIMITS.usagePerClient },
      ],
    });
    return { usage: read(usageAnswerSchema, answer, 'airalo usage').data, vendorIccid: candidate };
  });
}

/**
 * The wait before asking about one eSIM again (record 0234): Airalo answers from a cache of 20
 * minutes, and takes 10 usage calls a minute per ICCID; asking sooner learns nothing new.
 */
export function airaloRecheckSeconds(usageCacheMs = 1_200_000): number {
  const perIccid = AIRALO_LIMITS.usagePerIccid.windowMs / AIRALO_LIMITS.usagePerIccid.limit;
  return Math.ceil(Math.max(usageCacheMs, perIccid) / 1000);
}

export async function airaloProfileReport(session: AiraloSession, iccid: string): Promise<ProfileReport> {
  const { usage } = await usageOf(session, iccid);
  return { ...airaloReport(iccid, usage, Math.floor(Date.now() / 1000)), recheck_after_seconds: airaloRecheckSeconds(session.options.usageCacheMs) };
}
