import { createHmac } from 'node:crypto';
import { sendCallback } from '../shared/callbacks.ts';
import type { AiraloContext } from './context.ts';
import type { AiraloSim } from './state.ts';
import { capacityBytes, isUnlimitedSim, validityDays } from './topups.ts';

const DAY = 86_400_000;

/**
 * AIR-15: Airalo signs the JSON it sends with HMAC-SHA512 (hex) keyed with the client secret;
 * the body is compact JSON with "/" escaped as "\/" (PHP's json_encode, which the SDK's check
 * reproduces), so the fake sends exactly those bytes.
 */
export function airaloWebhookBody(payload: unknown): string {
  return JSON.stringify(payload).replace(/\//g, '\\/');
}

export function airaloSignature(body: string, clientSecret: string): string {
  return createHmac('sha512', clientSecret).update(body).digest('hex');
}

/** Sends a signed webhook to `url` (the opted-in contact point or an order's `webhook_url`). */
export async function sendAiraloWebhook(ctx: AiraloContext, url: string, payload: unknown): Promise<void> {
  const body = airaloWebhookBody(payload);
  await sendCallback(ctx.sender, ctx.recorder, url, body, { 'airalo-signature': airaloSignature(body, ctx.settings.clientSecret) });
}

function simOf(ctx: AiraloContext, iccid: string): AiraloSim {
  const sim = ctx.state.sims[iccid];
  if (!sim) throw new Error(`no eSIM ${iccid} at this Airalo fake`);
  return sim;
}

const isFinal = (sim: AiraloSim) => sim.status === 'FINISHED' || sim.status === 'EXPIRED' || sim.status === 'RECYCLED';

/** Low-data notification (webhook definition page): `level` is "75%", "90%", "3days" or "1days". */
async function notifyLowData(ctx: AiraloContext, sim: AiraloSim, level: string): Promise<void> {
  if (sim.notified.includes(level)) return;
  sim.notified.push(level);
  ctx.save();
  const optIn = ctx.state.notifications.find((n) => n.type === 'webhook_low_data');
  if (!optIn) return;
  const remaining = isUnlimitedSim(ctx, sim) ? 100 : Math.max(0, Math.round(100 - (100 * sim.used_bytes) / capacityBytes(ctx, sim)));
  await sendAiraloWebhook(ctx, optIn.contact_point, { level, package_name: sim.package_id, remaining_percentage: remaining, iccid: sim.iccid });
}

export function installSim(ctx: AiraloContext, iccid: string): void {
  const sim = simOf(ctx, iccid);
  sim.installed_at ??= ctx.clock.now();
  ctx.save();
}

/** First network attach: with the first-usage policy the validity starts now. */
export function attachSim(ctx: AiraloContext, iccid: string): void {
  const sim = simOf(ctx, iccid);
  if (isFinal(sim)) throw new Error(`eSIM ${iccid} is ${sim.status}`);
  sim.installed_at ??= ctx.clock.now();
  if (sim.status === 'NOT_ACTIVE') {
    sim.activated_at = ctx.clock.now();
    sim.expires_at = sim.activated_at + validityDays(ctx, sim) * DAY;
    sim.status = 'ACTIVE';
  }
  ctx.save();
}

export async function useData(ctx: AiraloContext, iccid: string, bytes: number): Promise<void> {
  if (!Number.isFinite(bytes) || bytes < 0) throw new Error('bytes must be a non-negative number');
  attachSim(ctx, iccid);
  const sim = simOf(ctx, iccid);
  const unlimited = isUnlimitedSim(ctx, sim);
  const capacity = capacityBytes(ctx, sim);
  sim.used_bytes = unlimited ? sim.used_bytes + bytes : Math.min(capacity, sim.used_bytes + bytes);
  if (!unlimited && sim.used_bytes >= capacity) {
    sim.status = 'FINISHED';
    sim.finished_at = ctx.clock.now();
  }
  ctx.save();
  if (unlimited) return;
  const usedShare = sim.used_bytes / capacity;
  if (usedShare >= 0.75) await notifyLowData(ctx, sim, '75%');
  if (usedShare >= 0.9) await notifyLowData(ctx, sim, '90%');
}

export async function depleteSim(ctx: AiraloContext, iccid: string): Promise<void> {
  const sim = simOf(ctx, iccid);
  if (isUnlimitedSim(ctx, sim)) throw new Error(`eSIM ${iccid} has an unlimited package: it cannot run out`);
  await useData(ctx, iccid, capacityBytes(ctx, sim) - sim.used_bytes);
}

/** The end of validity; the 3-day and 1-day notices fall due on the way. */
export async function expireSim(ctx: AiraloContext, iccid: string): Promise<void> {
  const sim = simOf(ctx, iccid);
  if (sim.status === 'RECYCLED' || sim.status === 'EXPIRED') return;
  const now = ctx.clock.now();
  if (sim.status === 'ACTIVE' || sim.status === 'FINISHED') {
    await notifyLowData(ctx, sim, '3days');
    await notifyLowData(ctx, sim, '1days');
  }
  sim.expires_at = Math.min(sim.expires_at ?? now, now);
  sim.status = 'EXPIRED';
  ctx.save();
}

/** Sets any documented usage status (AIR-11), e.g. UNKNOWN or RECYCLED, which no handset event reaches. */
export function setUsageStatus(ctx: AiraloContext, iccid: string, status: AiraloSim['status']): void {
  const sim = simOf(ctx, iccid);
  sim.status = status;
  if (status === 'RECYCLED') sim.recycled_at ??= ctx.clock.now();
  ctx.save();
}

/** After the clock moved: send the notices and expiries that fell due. */
export async function applyElapsedTime(ctx: AiraloContext): Promise<void> {
  const now = ctx.clock.now();
  for (const sim of Object.values(ctx.state.sims)) {
    if (sim.expires_at === undefined || sim.status === 'EXPIRED' || sim.status === 'RECYCLED') continue;
    if (sim.status === 'ACTIVE' && sim.expires_at - now <= 3 * DAY) await notifyLowData(ctx, sim, '3days');
    if (sim.status === 'ACTIVE' && sim.expires_at - now <= DAY) await notifyLowData(ctx, sim, '1days');
    if (now >= sim.expires_at) await expireSim(ctx, sim.iccid);
  }
}
