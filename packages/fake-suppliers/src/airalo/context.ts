import type { RateLimitRule } from '../shared/rate-limiter.ts';
import type { FakeControl } from '../shared/control.ts';
import type { CommonContext } from '../shared/runtime.ts';
import type { CommonFakeOptions } from '../shared/options.ts';
import type { AiraloDestinationSpec, CataloguedPackage } from './catalogue.ts';
import type { AiraloRefund, AiraloState, AiraloUsageStatus } from './state.ts';

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

/** What a test (or `/_fake`) may do to the fake beyond the API: its own type, so the app and the start-up share it without importing each other. */
export interface AiraloControl extends FakeControl {
  /** Any documented usage status (NOT_ACTIVE, ACTIVE, FINISHED, UNKNOWN, EXPIRED, RECYCLED), e.g. the two no handset event reaches. */
  setUsageStatus(iccid: string, status: AiraloUsageStatus): Promise<void>;
  /** A copy of everything the fake remembers (orders, eSIMs, refunds, opt-ins, balance). */
  state(): AiraloState;
  /** Every refund request made through POST /v2/refund, with its review status (`GET /_fake/refunds`). */
  refunds(): AiraloRefund[];
  /**
   * Airalo's review agrees (`POST /_fake/refunds/{id}/approve`): the request's unused, unrefunded
   * eSIMs are credited their net price and their orders become `refunded` or `partially_refunded`.
   * Rejects a request that is unknown or already decided.
   */
  approveRefund(refundId: string): Promise<AiraloRefund>;
  /** Airalo's review refuses (`POST /_fake/refunds/{id}/reject`): nothing is credited, no order changes. */
  rejectRefund(refundId: string): Promise<AiraloRefund>;
  /** Airalo changes what a package costs us (`net_price`, USD; `PUT /_fake/prices/{package}`): listed and charged from then on. */
  setPrice(packageId: string, netPriceUsd: number): void;
}
