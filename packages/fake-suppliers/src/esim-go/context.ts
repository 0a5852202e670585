import type { RateLimitRule } from '../shared/rate-limiter.ts';
import type { CommonContext } from '../shared/runtime.ts';
import type { CommonFakeOptions } from '../shared/options.ts';
import type { EsimGoBundleSpec } from './catalogue.ts';
import type { EsimGoState } from './state.ts';

export interface EsimGoFakeOptions extends CommonFakeOptions {
  /** The organisation's API key (X-API-Key); random by default. */
  apiKey?: string;
  /** The callback URL set in the eSIM Go portal (there is no API for it); callbacks go nowhere without one. */
  callbackUrl?: string;
  /** EG-15: the webhooks guide says hex, the document's sample base64; hex by default. */
  signatureEncoding?: 'hex' | 'base64';
  /**
   * Refunds on revoke and from inventory (default false: the live docs say "Access to the refund
   * functionality is disabled by default" until the account manager enables it).
   */
  refundsEnabled?: boolean;
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

export interface EsimGoContext extends CommonContext<EsimGoState> {
  settings: EsimGoSettings;
  catalogue: EsimGoBundleSpec[];
}

export const bundleOf = (ctx: EsimGoContext, name: string) => ctx.catalogue.find((b) => b.name === name);
