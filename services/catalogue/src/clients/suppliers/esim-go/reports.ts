import type { ProfileReport } from '@connectivity/contracts';
import type { z } from 'zod';
import type { callbackSchema } from './api.ts';
import { bundlesAnswerSchema, esimDetailsSchema, type EsimGoBundles, type EsimGoDetails } from './api.ts';
import { read, withVendorIccid, type EsimGoSession } from './session.ts';

const isoSeconds = (value: string | undefined) => {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
};

/** Profile statuses (EG-18) that say the handset has the profile. */
const ON_A_HANDSET = ['Downloaded', 'Installed', 'Enabled', 'Disabled', 'Deleted', 'Confirmed'];

/**
 * An eSIM's profile status and its latest bundle assignment in our terms
 * (docs/decisions/0130-vendor-status-mapping.md).
 */
export function esimGoReport(iccid: string, details: Pick<EsimGoDetails, 'profileStatus'>, bundles: EsimGoBundles, observedAt: number): ProfileReport {
  const latest = bundles
    .flatMap((b) => b.assignments)
    .sort((a, b) => (Date.parse(b.assignmentDateTime ?? '') || 0) - (Date.parse(a.assignmentDateTime ?? '') || 0))[0];
  const unlimited = latest?.unlimited === true || latest?.initialQuantity === undefined;
  const limit = unlimited ? null : Math.max(0, Math.round(latest.initialQuantity!));
  const used = unlimited || latest?.remainingQuantity === undefined ? null : Math.max(0, Math.round(latest.initialQuantity! - latest.remainingQuantity));
  const base = { iccid, data_limit_bytes: limit, data_used_bytes: used, expires_at: null, observed_at: observedAt };
  switch (latest?.bundleState) {
    case 'active':
      return { ...base, state: 'active', expired_reason: null };
    case 'depleted':
      return { ...base, state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit ?? used };
    case 'expired':
    case 'lapsed':
      return { ...base, state: 'expired', expired_reason: 'validity_ended' };
    case 'revoked':
      return { ...base, state: 'expired', expired_reason: 'cancelled' };
    default:
      // Waiting to start (queued, processing) or no bundle: where the profile is says it all.
      return { ...base, state: ON_A_HANDSET.includes(details.profileStatus ?? '') ? 'installed' : 'released', expired_reason: null, data_used_bytes: null };
  }
}

/**
 * A V3 callback in our terms; undefined for alerts that say nothing about the life cycle. As the
 * notifications page has it (record 0230): `FirstAttachment` says the eSIM joined a network (it is
 * installed; its bundle has not started), `FirstUse` that the bundle started (active, validity from
 * `startTime` to `endTime`).
 */
export function esimGoCallbackReport(iccid: string, callback: z.infer<typeof callbackSchema>, observedAt: number): ProfileReport | undefined {
  if (callback.alertType === 'FirstAttachment') {
    return { iccid, state: 'installed', expired_reason: null, data_used_bytes: null, data_limit_bytes: null, expires_at: null, observed_at: observedAt };
  }
  if ((callback.alertType !== 'FirstUse' && callback.alertType !== 'Utilisation') || !callback.bundle) return undefined;
  const { initialQuantity, remainingQuantity, unlimited, endTime, startTime } = callback.bundle;
  const limited = unlimited !== true && initialQuantity !== undefined && remainingQuantity !== undefined;
  const limit = limited ? Math.round(initialQuantity) : null;
  const used = limited ? Math.max(0, Math.round(initialQuantity - remainingQuantity)) : null;
  const depleted = limited && remainingQuantity <= 0;
  return {
    iccid,
    state: depleted ? 'expired' : 'active',
    expired_reason: depleted ? 'data_exhausted' : null,
    data_used_bytes: used,
    data_limit_bytes: limit,
    expires_at: isoSeconds(endTime),
    started_at: isoSeconds(startTime),
    observed_at: observedAt,
  };
}

export const bundlesOf = async (session: EsimGoSession, vendorIccid: string) =>
  read(
    bundlesAnswerSchema,
    await session.call({
      operation: 'esim_bundles',
      method: 'GET',
      path: `/esims/${encodeURIComponent(vendorIccid)}/bundles`,
      query: { includeUsed: true, limit: 200 },
      idempotent: true,
    }),
    'esim-go bundles',
  ).bundles;

export async function detailsOf(session: EsimGoSession, vendorIccid: string) {
  const details = read(
    esimDetailsSchema,
    await session.call({ operation: 'esim_details', method: 'GET', path: `/esims/${encodeURIComponent(vendorIccid)}`, idempotent: true }),
    'esim-go eSIM',
  );
  session.tags.set(vendorIccid, details.customerRef);
  return details;
}

/** The customerRef of an eSIM: from memory when this process saw it tagged, else asked. */
export async function customerRefOf(session: EsimGoSession, vendorIccid: string): Promise<string | undefined> {
  return session.tags.get(vendorIccid) ?? (await detailsOf(session, vendorIccid)).customerRef;
}

export async function esimGoProfileReport(session: EsimGoSession, iccid: string): Promise<ProfileReport> {
  return withVendorIccid(session, iccid, async (vendorIccid) => {
    const details = await detailsOf(session, vendorIccid);
    return esimGoReport(iccid, details, await bundlesOf(session, vendorIccid), Math.floor(Date.now() / 1000));
  });
}
