import type { Environment, ValidityStart } from '@connectivity/contracts';

const SECONDS_PER_DAY = 86_400;

/** The part of an eSIM its validity reads (record 0230). */
export interface ValiditySubject {
  environment: Environment;
  validity_start: ValidityStart;
  /** The bundle's duration, kept to set `expires_at` when the validity starts; null when it states none. */
  validity_days: number | null;
  expires_at: number | null;
}

/** When a bundle bought at `createdAt` ends: at purchase + duration, or unknown (null) until a `first_use` bundle is first used. */
export function expiresAtPurchase(createdAt: number, durationDays: number | undefined, validityStart: ValidityStart): number | null {
  if (durationDays === undefined || validityStart === 'first_use') return null;
  return createdAt + durationDays * SECONDS_PER_DAY;
}

/** The install-by deadline: purchase + the supplier's install window, where it has one. */
export const installBy = (createdAt: number, installWindowDays: number | null): number | null =>
  installWindowDays === null ? null : createdAt + installWindowDays * SECONDS_PER_DAY;

/** `expires_at` of a `first_use` eSIM whose validity started at `startedAt`; null when it has no duration. */
export const expiresFromStart = (esim: Pick<ValiditySubject, 'validity_days'>, startedAt: number): number | null =>
  esim.validity_days === null ? null : startedAt + esim.validity_days * SECONDS_PER_DAY;

/**
 * A sandbox eSIM of a `first_use` bundle as its simulated first use (the move to `active`) leaves
 * it: its validity starts at `nowSeconds` (the real time or its test clock's). A live eSIM's start
 * is the supplier's word (its report), never ours; any other eSIM is returned as it is.
 */
export function startSandboxValidity<T extends Partial<ValiditySubject>>(esim: T, nowSeconds: number): T {
  if (esim.environment !== 'test' || esim.validity_start !== 'first_use' || esim.expires_at !== null) return esim;
  if (esim.validity_days === null || esim.validity_days === undefined) return esim;
  return { ...esim, expires_at: nowSeconds + esim.validity_days * SECONDS_PER_DAY };
}
