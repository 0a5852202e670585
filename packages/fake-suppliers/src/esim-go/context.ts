import type { CallbackSender } from '../shared/callbacks.ts';
import type { Clock } from '../shared/clock.ts';
import type { FaultState } from '../shared/faults.ts';
import type { FixedWindowLimiter, RateLimitRule } from '../shared/rate-limiter.ts';
import type { Recorder } from '../shared/recorder.ts';
import type { TlsOptions } from '../shared/server.ts';
import type { EsimGoBundleSpec } from './catalogue.ts';
import type { EsimGoState } from './state.ts';

export interface EsimGoFakeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** The organisation's API key (X-API-Key); random by default. */
  apiKey?: string;
  tls?: TlsOptions;
  /** Organisation balance in USD. */
  balance?: number;
  /** The callback URL set in the eSIM Go portal (there is no API for it); callbacks go nowhere without one. */
  callbackUrl?: string;
  /** EG-15: the webhooks guide says hex, the document's sample base64; hex by default. */
  signatureEncoding?: 'hex' | 'base64';
  /** Refunds on revoke (the live docs: "disabled by default" until the account manager enables them). */
  refundsEnabled?: boolean;
  /** ICCID length: 19 as in eSIM Go's examples, or 20. */
  iccidDigits?: 19 | 20;
  smdpAddress?: string;
  /** Keep state in this JSON file across restarts (memory only when absent). */
  stateFile?: string;
  /** Record every incoming request that does not match eSIM Go's document (default true). */
  checkRequests?: boolean;
  /** Record every answer that does not match the document (default false; the fake's own tests turn it on). */
  checkResponses?: boolean;
  /** Send callbacks (default true); off drops them, so polling is the only path. */
  callbacks?: boolean;
  callbackTimeoutMs?: number;
  /** EG-17: 10 requests per second per IP address, fixed window. */
  rateLimit?: RateLimitRule;
  catalogue?: EsimGoBundleSpec[];
}

export interface EsimGoSettings {
  apiKey: string;
  signatureEncoding: 'hex' | 'base64';
  refundsEnabled: boolean;
  iccidDigits: 19 | 20;
  smdpAddress: string;
  rateLimit: RateLimitRule;
}

export interface EsimGoContext {
  settings: EsimGoSettings;
  state: EsimGoState;
  catalogue: EsimGoBundleSpec[];
  clock: Clock;
  recorder: Recorder;
  limiter: FixedWindowLimiter;
  sender: CallbackSender;
  faults: FaultState;
  origin(): string;
  save(): void;
}

export const bundleOf = (ctx: EsimGoContext, name: string) => ctx.catalogue.find((b) => b.name === name);
