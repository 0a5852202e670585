import { SERVICE_VERSIONS, type ServiceVersion } from '@connectivity/contracts';

/** One row of the deprecation timetable (configuration): dates are Unix seconds. */
export interface VersionSchedule {
  deprecatedAt?: number;
  sunsetAt?: number;
  link?: string;
}

export type VersionTimetable = Partial<Record<ServiceVersion, VersionSchedule>>;

export const isServedVersion = (value: string): value is ServiceVersion => (SERVICE_VERSIONS as readonly string[]).includes(value);

/** The newest version: what an account with no pin (and no header) is pinned to. */
export const LATEST_VERSION: ServiceVersion = SERVICE_VERSIONS[SERVICE_VERSIONS.length - 1] ?? SERVICE_VERSIONS[0];

export type VersionChoice = { ok: true; version: ServiceVersion } | { ok: false };

/** The header wins when present (and must be served); else the account's pin; else the newest. */
export function chooseVersion(header: string | undefined, pinned: string | null | undefined): VersionChoice {
  if (header !== undefined) return isServedVersion(header) ? { ok: true, version: header } : { ok: false };
  if (pinned && isServedVersion(pinned)) return { ok: true, version: pinned };
  return { ok: true, version: LATEST_VERSION };
}

/**
 * The warning headers for a version on the timetable: `Deprecation: @<unix>` (RFC 9745),
 * `Sunset: <HTTP date>` (RFC 8594) and a `Link` to the migration notes.
 */
export function deprecationHeaders(schedule: VersionSchedule | undefined, defaultLink: string): Record<string, string> {
  if (!schedule || (schedule.deprecatedAt === undefined && schedule.sunsetAt === undefined)) return {};
  const headers: Record<string, string> = {};
  if (schedule.deprecatedAt !== undefined) headers.Deprecation = `@${schedule.deprecatedAt}`;
  if (schedule.sunsetAt !== undefined) headers.Sunset = new Date(schedule.sunsetAt * 1000).toUTCString();
  headers.Link = `<${schedule.link ?? defaultLink}>; rel="deprecation"; type="text/html"`;
  return headers;
}
