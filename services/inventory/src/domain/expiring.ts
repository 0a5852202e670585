import { EXPIRING_MARKS, type ExpiringMark } from '@connectivity/contracts';
import type { EsimRecord } from './esim.ts';

const DAY = 86_400;

/** The last `esim.expiring` sent for an eSIM: the `expires_at` it announced and its mark; null for none. */
export interface ExpiringNotified {
  for: number | null;
  days: ExpiringMark | null;
}

/** When a mark falls: `days` before `expires_at` (unix seconds). */
export const markInstant = (expiresAt: number, days: ExpiringMark): number => expiresAt - days * DAY;

/**
 * Whether the last notice was for the same end: the same `expires_at`, or one less than a day earlier (a
 * vendor's report correcting the end by minutes is not a new end; a top-up adds at least a day).
 */
const sameEnd = (announced: number | null, expiresAt: number | null): boolean =>
  announced === expiresAt || (announced !== null && expiresAt !== null && expiresAt - announced < DAY);

/** Whether `mark` was sent for the eSIM's current end, or a nearer mark was (which supersedes it). */
export const markSent = (esim: Pick<EsimRecord, 'expires_at'>, notified: ExpiringNotified, mark: ExpiringMark): boolean =>
  sameEnd(notified.for, esim.expires_at) && notified.days !== null && notified.days <= mark;

/**
 * The mark to announce now (record 0236), or null: the nearest mark reached by `now` whose instant is later
 * than the eSIM's creation (a 1-day bundle is not "1 day left" at purchase), not sent yet for this
 * `expires_at`, while the eSIM is not expired and `now` is before its end. Only the nearest is sent when
 * several were reached at once (a clock advanced past both, a sweeper that was down): "3 days left" with
 * hours left would mislead. Mirrors `expiringDue` in `db/expiring-repository.ts`.
 */
export function dueExpiringMark(esim: EsimRecord, notified: ExpiringNotified, now: number): ExpiringMark | null {
  if (esim.state === 'expired' || esim.expires_at === null || now >= esim.expires_at) return null;
  const expiresAt = esim.expires_at;
  const reached = EXPIRING_MARKS.filter((days) => markInstant(expiresAt, days) <= now && markInstant(expiresAt, days) > esim.created_at);
  const nearest = reached[reached.length - 1];
  return nearest === undefined || markSent(esim, notified, nearest) ? null : nearest;
}

/** A vendor's own notice (Airalo's `3days`/`1days`) becomes `esim.expiring` once per mark, never for an expired eSIM. */
export function vendorExpiringMark(esim: EsimRecord, notified: ExpiringNotified, mark: ExpiringMark): ExpiringMark | null {
  if (esim.state === 'expired' || markSent(esim, notified, mark)) return null;
  return mark;
}
