import type { CallbackSender } from '../shared/callbacks.ts';
import type { Clock } from '../shared/clock.ts';
import type { FaultState } from '../shared/faults.ts';
import type { FixedWindowLimiter, RateLimitRule } from '../shared/rate-limiter.ts';
import type { Recorder } from '../shared/recorder.ts';
import type { TlsOptions } from '../shared/server.ts';
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

export interface AiraloFakeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  clientId?: string;
  clientSecret?: string;
  /** Serve HTTPS (the official SDK speaks nothing else); generate the pair at test time, never commit a key. */
  tls?: TlsOptions;
  /** Access tokens live this long (AIR-6: the prose says 24 hours). */
  tokenTtlSeconds?: number;
  /** Account balance in USD. */
  balance?: number;
  /** ICCID length: 19 as in Airalo's production examples, or 20. */
  iccidDigits?: 19 | 20;
  /** The SM-DP+ address the eSIMs carry (`lpa`). */
  smdpAddress?: string;
  /** Keep state in this JSON file across restarts (memory only when absent). */
  stateFile?: string;
  /** Record every incoming request that does not match Airalo's documents (default true). */
  checkRequests?: boolean;
  /** Record every answer that does not match Airalo's documents (default false; the fake's own tests turn it on). */
  checkResponses?: boolean;
  /** Send callbacks (default true); off drops them, so polling is the only path. */
  callbacks?: boolean;
  callbackTimeoutMs?: number;
  /** Check a webhook URL with HEAD on opt-in, as Airalo does (default true). */
  checkWebhookOnOptIn?: boolean;
  rateLimits?: Partial<AiraloRateLimits>;
  catalogue?: AiraloDestinationSpec[];
}

export interface AiraloSettings {
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds: number;
  iccidDigits: 19 | 20;
  smdpAddress: string;
  checkWebhookOnOptIn: boolean;
  rateLimits: AiraloRateLimits;
}

/** What every route and the control handle share. */
export interface AiraloContext {
  settings: AiraloSettings;
  state: AiraloState;
  packages: Map<string, CataloguedPackage>;
  catalogue: AiraloDestinationSpec[];
  clock: Clock;
  recorder: Recorder;
  limiter: FixedWindowLimiter;
  sender: CallbackSender;
  faults: FaultState;
  /** The fake's own origin, e.g. https://127.0.0.1:4321. */
  origin(): string;
  /** Persists the state (no-op without a state file). */
  save(): void;
}
