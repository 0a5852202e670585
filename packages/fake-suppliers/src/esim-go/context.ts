import type { RateLimitRule } from '../shared/rate-limiter.ts';
import type { FakeControl } from '../shared/control.ts';
import type { CommonContext } from '../shared/runtime.ts';
import type { CommonFakeOptions } from '../shared/options.ts';
import type { EsimGoBundleSpec } from './catalogue.ts';
import type { BundleState, EsimGoState, ProfileStatus } from './state.ts';

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

/** What a test (or `/_fake`) may do to the fake beyond the API: its own type, so the app and the start-up share it without importing each other. */
export interface EsimGoControl extends FakeControl {
  /** Any documented profileStatus (Released, Downloaded, Installed, Enabled, Disabled, Deleted, Unavailable, Confirmed, Error). */
  setProfileStatus(iccid: string, status: ProfileStatus): Promise<void>;
  /** Any documented bundleState (processing, queued, active, depleted, expired, revoked, lapsed). */
  setBundleState(iccid: string, state: BundleState): Promise<void>;
  /** The callback URL of the portal's API Details page (eSIM Go has no API for it). */
  setCallbackUrl(url: string): void;
  /** What the account manager does on request: refunds on revoke and from inventory on (true) or off. */
  setRefundsEnabled(enabled: boolean): void;
  /** A copy of everything the fake remembers (organisation, eSIMs, orders, inventory). */
  state(): EsimGoState;
  /** eSIM Go changes what a bundle costs (`price`, the organisation's currency; `PUT /_fake/prices/{bundle}`): listed, quoted and charged from then on. */
  setPrice(bundle: string, price: number): void;
}
