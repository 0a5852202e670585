import type { RateLimitRule } from '../shared/rate-limiter.ts';
import type { CommonContext } from '../shared/runtime.ts';
import type { CommonFakeOptions } from '../shared/options.ts';
import type { AiraloDestinationSpec, CataloguedPackage } from './catalogue.ts';
import type { AiraloState } from './state.ts';

/** Airalo's documented rate limits (AIR-16: the newest vendor text), each overridable. */
export interface AiraloRateLimits {
  /** POST /v2/token, per client_id. */
  token: RateLimitRule;
  /** GET /v2/packages, per access token. */
  packages: RateLimitRule;
  /** GET /v2/sims/{iccid}/usage, per ICCID. */
  usagePerIccid: RateLimitRule;
  /** GET /v2/sims/{iccid}/usage, per client. */
  usagePerClient: RateLimitRule;
  /** GET /v2/sims/{iccid}/packages, per ICCID. */
  packageHistory: RateLimitRule;
  /** POST /v2/refund, per IP address. */
  refund: RateLimitRule;
}

export const AIRALO_RATE_LIMITS: AiraloRateLimits = {
  token: { limit: 3, windowMs: 60_000 },
  packages: { limit: 80, windowMs: 60_000 },
  usagePerIccid: { limit: 10, windowMs: 60_000 },
  usagePerClient: { limit: 5, windowMs: 1_000 },
  packageHistory: { limit: 10, windowMs: 60_000 },
  refund: { limit: 5, windowMs: 60_000 },
};

/** The usage answer's cache in production (the usage page). */
export const AIRALO_USAGE_CACHE_MS = 20 * 60_000;

export interface AiraloFakeOptions extends CommonFakeOptions {
  clientId?: string;
  clientSecret?: string;
  /** Access tokens live this long (AIR-6: the prose says 24 hours). */
  tokenTtlSeconds?: number;
  /** Check a webhook URL with HEAD on opt-in, as Airalo does (default true). */
  checkWebhookOnOptIn?: boolean;
  rateLimits?: Partial<AiraloRateLimits>;
  catalogue?: AiraloDestinationSpec[];
  /**
   * Refund requests wait for a person at Airalo (`manual`, the default: decide them with
   * `control.approveRefund`/`rejectRefund`), or are approved the moment they are made (`approve`).
   */
  refundReview?: 'manual' | 'approve';
  /**
   * How long an ICCID's usage answer is kept (the usage page: "A built-in cache of 20 minutes",
   * 60 in Airalo's sandbox). Default 20 minutes; 0 answers live values (tests that are not about
   * the cache).
   */
  usageCacheMs?: number;
}

export interface AiraloSettings {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  iccidDigits: 19 | 20;
  smdpAddress: string;
  checkWebhookOnOptIn: boolean;
  rateLimits: AiraloRateLimits;
  refundReview: 'manual' | 'approve';
  usageCacheMs: number;
}

/** What every route and the control handle share. */
export interface AiraloContext extends CommonContext<AiraloState> {
  settings: AiraloSettings;
  packages: Map<string, CataloguedPackage>;
  catalogue: AiraloDestinationSpec[];
  /** The usage answers being served from Airalo's cache: by ICCID, the answer and when it was made (fake clock). */
  usageCache: Map<string, { at: number; body: unknown }>;
}
