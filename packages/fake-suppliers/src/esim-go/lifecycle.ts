import { createHmac } from 'node:crypto';
import { sendCallback } from '../shared/callbacks.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import type { EsimGoAssignment, EsimGoEsim } from './state.ts';

const DAY = 86_400_000;
/** Utilisation alerts at 1%, 50%, 80% and 100% of the bundle used (notifications page). */
const UTILISATION_THRESHOLDS = [1, 50, 80, 100];

export const isoTime = (ms: number) => new Date(ms).toISOString();

/** EG-15: HMAC-SHA256 of the raw body keyed with the API key, in the `X-Signature-SHA256` header. */
export function esimGoSignature(body: string, apiKey: string, encoding: 'hex' | 'base64'): string {
  return createHmac('sha256', apiKey).update(body).digest(encoding);
}

async function callback(ctx: EsimGoContext, payload: unknown): Promise<void> {
  const url = ctx.state.organisation.callback_url;
  if (!url) return;
  const body = JSON.stringify(payload);
  await sendCallback(ctx.sender, ctx.recorder, url, body, {
    'X-Signature-SHA256': esimGoSignature(body, ctx.settings.apiKey, ctx.settings.signatureEncoding),
  });
}

/** The V3 callback's bundle block (quantities in bytes). */
export function bundleBlock(ctx: EsimGoContext, assignment: EsimGoAssignment) {
  return {
    id: assignment.id,
    reference: assignment.reference,
    name: assignment.bundle,
    description: bundleOf(ctx, assignment.bundle)?.description ?? assignment.bundle,
    initialQuantity: assignment.initial_bytes,
    remainingQuantity: assignment.remaining_bytes,
    startTime: isoTime(assignment.started_at ?? assignment.assigned_at),
    endTime: isoTime(assignment.ends_at ?? assignment.assigned_at + (bundleOf(ctx, assignment.bundle)?.duration ?? 0) * DAY),
    unlimited: assignment.unlimited,
  };
}

export function recordHistory(ctx: EsimGoContext, esim: EsimGoEsim, name: string, bundleName = ''): void {
  esim.history.push({ name, bundleName, date: isoTime(ctx.clock.now()) });
}

function esimOf(ctx: EsimGoContext, iccid: string): EsimGoEsim {
  const esim = ctx.state.esims[iccid];
  if (!esim) throw new Error(`no eSIM ${iccid} at this eSIM Go fake`);
  return esim;
}

/** The assignment in use: the active one, else the oldest waiting to start. */
export function currentAssignment(esim: EsimGoEsim): EsimGoAssignment | undefined {
  return esim.assignments.find((a) => a.state === 'active') ?? esim.assignments.find((a) => a.state === 'queued' || a.state === 'processing');
}

export function installEsim(ctx: EsimGoContext, iccid: string): void {
  const esim = esimOf(ctx, iccid);
  if (esim.profile_status === 'Released' || esim.profile_status === 'Downloaded') esim.profile_status = 'Installed';
  esim.first_installed_at ??= ctx.clock.now();
  ctx.save();
}

/**
 * First network attach: the profile is enabled; the bundle does not start yet. eSIM Go's
 * `FirstAttachment` only says the eSIM joined a network; a bundle starts at its first data use
 * (`FirstUse`, notifications page), and its validity counts from there.
 */
export async function attachEsim(ctx: EsimGoContext, iccid: string): Promise<void> {
  const esim = esimOf(ctx, iccid);
  installEsim(ctx, iccid);
  esim.profile_status = 'Enabled';
  const first = esim.attached_at === undefined;
  esim.attached_at ??= ctx.clock.now();
  if (first) recordHistory(ctx, esim, 'eSIM First Attachment', currentAssignment(esim)?.bundle);
  ctx.save();
  if (first) await callback(ctx, { alertType: 'FirstAttachment', iccid });
}

/** The waiting bundle starts (first data use): its validity counts from now. */
function startBundle(ctx: EsimGoContext, assignment: EsimGoAssignment): void {
  if (assignment.state === 'active') return;
  assignment.state = 'active';
  assignment.started_at = ctx.clock.now();
  assignment.ends_at = assignment.started_at + (bundleOf(ctx, assignment.bundle)?.duration ?? 0) * DAY;
}

export async function useData(ctx: EsimGoContext, iccid: string, bytes: number): Promise<void> {
  if (!Number.isFinite(bytes) || bytes < 0) throw new Error('bytes must be a non-negative number');
  await attachEsim(ctx, iccid);
  const esim = esimOf(ctx, iccid);
  const assignment = currentAssignment(esim);
  if (!assignment) throw new Error(`eSIM ${iccid} has no bundle to use`);
  if (bytes > 0) startBundle(ctx, assignment);
  if (assignment.state !== 'active') {
    ctx.save();
    return;
  }
  const alerts: number[] = [];
  if (!assignment.unlimited) {
    assignment.remaining_bytes = Math.max(0, assignment.remaining_bytes - bytes);
    const usedPercent = (100 * (assignment.initial_bytes - assignment.remaining_bytes)) / assignment.initial_bytes;
    for (const threshold of UTILISATION_THRESHOLDS) {
      if (usedPercent >= threshold && !assignment.notified.includes(threshold)) {
        assignment.notified.push(threshold);
        alerts.push(threshold);
      }
    }
    if (assignment.remaining_bytes === 0) assignment.state = 'depleted';
  }
  const firstUse = !assignment.first_use_sent && bytes > 0;
  if (firstUse) {
    assignment.first_use_sent = true;
    recordHistory(ctx, esim, 'eSIM First Use', assignment.bundle);
  }
  for (const _ of alerts) recordHistory(ctx, esim, 'eSIM Utilisation Alert', assignment.bundle);
  ctx.save();
  if (firstUse) await callback(ctx, { iccid, alertType: 'FirstUse', bundle: bundleBlock(ctx, assignment) });
  for (const _ of alerts) await callback(ctx, { iccid, alertType: 'Utilisation', bundle: bundleBlock(ctx, assignment) });
}

export async function depleteEsim(ctx: EsimGoContext, iccid: string): Promise<void> {
  const esim = esimOf(ctx, iccid);
  const assignment = currentAssignment(esim);
  if (!assignment) throw new Error(`eSIM ${iccid} has no bundle to use up`);
  if (assignment.unlimited) throw new Error(`eSIM ${iccid} has an unlimited bundle: it cannot run out`);
  await useData(ctx, iccid, assignment.remaining_bytes);
}

/** The validity ended: a started bundle expires, one never used lapses. */
export function expireEsim(ctx: EsimGoContext, iccid: string): void {
  const esim = esimOf(ctx, iccid);
  const now = ctx.clock.now();
  for (const assignment of esim.assignments) {
    if (assignment.state === 'active' || assignment.state === 'depleted') {
      assignment.state = 'expired';
      assignment.ends_at = Math.min(assignment.ends_at ?? now, now);
      recordHistory(ctx, esim, 'Bundle Expired', assignment.bundle);
    } else if (assignment.state === 'queued' || assignment.state === 'processing') {
      assignment.state = 'lapsed';
      recordHistory(ctx, esim, 'Bundle Lapsed', assignment.bundle);
    }
  }
  ctx.save();
}

/** Sets any documented profile status (EG-18), e.g. Disabled or Deleted, which no other control reaches. */
export function setProfileStatus(ctx: EsimGoContext, iccid: string, status: EsimGoEsim['profile_status']): void {
  esimOf(ctx, iccid).profile_status = status;
  ctx.save();
}

/** Sets any documented bundleState (EG-18) on the current (else latest) assignment, e.g. processing. */
export function setBundleState(ctx: EsimGoContext, iccid: string, state: EsimGoAssignment['state']): void {
  const esim = esimOf(ctx, iccid);
  const assignment = currentAssignment(esim) ?? esim.assignments.at(-1);
  if (!assignment) throw new Error(`eSIM ${iccid} has no bundle`);
  assignment.state = state;
  ctx.save();
}

/** After the clock moved: bundles whose duration is over expire. */
export function applyElapsedTime(ctx: EsimGoContext): void {
  const now = ctx.clock.now();
  for (const esim of Object.values(ctx.state.esims)) {
    for (const assignment of esim.assignments) {
      if ((assignment.state === 'active' || assignment.state === 'depleted') && assignment.ends_at !== undefined && assignment.ends_at <= now) {
        assignment.state = 'expired';
        recordHistory(ctx, esim, 'Bundle Expired', assignment.bundle);
      }
    }
  }
  ctx.save();
}
