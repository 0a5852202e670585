import type { ProfileReport, SuppliedProfile, SupplierVendor, TerminationRefund, VendorOrder } from '@connectivity/contracts';
import type { CatalogueBundle } from '../../domain/bundle.ts';

/** A bundle as a supplier sells it: the catalogue fields without our retail price. */
export type SupplierBundle = Omit<CatalogueBundle, 'price_cents'>;

export interface OrderProfilesInput {
  /**
   * Our order id. No vendor de-duplicates orders: it is sent as the vendor's order description
   * or reference so that `findOrder` can tell, after a crash, whether the order was placed.
   */
  reference: string;
  bundle: string;
  quantity: number;
}

/** An order as it was placed (Unix seconds, our bundle name, how many): how `findOrder` may recognise an order that carries no reference. */
export interface PlacedOrder {
  since: number;
  bundle: string;
  quantity: number;
}

/**
 * What a purchase call came to (record 0159): `bought` with the profiles and what the vendor charged
 * per profile (cents, USD; null when it did not say), or `in_doubt`: the vendor may have made the
 * order or may still make it, and says so within `settlesWithinSeconds`.
 */
export type Purchase =
  | { outcome: 'bought'; profiles: SuppliedProfile[]; unitCostCents: number | null }
  | { outcome: 'in_doubt'; retryAfterSeconds: number; settlesWithinSeconds: number; vendorRequestId: string | null };

/** What a top-up purchase came to (record 0245): bought (what the vendor charged, cents USD, null when unsaid), or in doubt as a purchase is. */
export type TopupPurchase =
  { outcome: 'bought'; unitCostCents: number | null } | { outcome: 'in_doubt'; retryAfterSeconds: number; settlesWithinSeconds: number; vendorRequestId: null };

/** A top-up as it was placed: our reference (the top-up's id), the profile, the bundle, from when (Unix ms: when its hold was taken). */
export interface TopupPlaced {
  reference: string;
  iccid: string;
  bundle: string;
  since: number;
}

/**
 * A package the vendor itself says can top a profile up (record 0248): what it adds, in the vendor's
 * units (record 0231), and what it costs us (cents, USD). Its countries are the profile's.
 */
export interface VendorTopupOffer {
  name: string;
  description: string;
  data_mb: number | null;
  unlimited: boolean;
  duration_days: number;
  bytes_per_mb: number;
  costCents: number;
}

/** What ending a profile did about money (record 0158). */
export interface Termination {
  refund: TerminationRefund;
  vendorRefundId: string | null;
}

/** A window of the vendor's orders (Unix seconds) and the page of it asked for. */
export interface OrderWindow {
  since: number;
  until: number;
  page: number;
}

/** A vendor's callback as received: the exact bytes it signed and its headers (names in lower case). */
export interface SupplierCallback {
  rawBody: Buffer;
  headers: Record<string, string>;
}

/**
 * The supplier port: where bundles, their prices, the profiles of an environment and what
 * becomes of them come from. The sandbox has a simulated adapter; live has the adapter of the
 * configured vendor (Airalo or eSIM Go), or the unconfigured one. Adapters fail only with
 * SupplierError.
 */
export interface Supplier {
  /** Whether this adapter stands for a real supplier (live pricing, rated) or the sandbox. */
  readonly live: boolean;
  /** The vendor behind a live adapter; undefined for the sandbox and an unconfigured live supplier. */
  readonly vendor?: SupplierVendor | undefined;
  listBundles(): Promise<SupplierBundle[]>;
  /** The price of each bundle, in US cents, by bundle name: what we sell it for. */
  listPrices(): Promise<Map<string, number>>;
  /**
   * Buys `quantity` profiles, once per call: a retry after an unknown outcome goes through `findOrder`
   * first. Fails with SupplierError only when nothing was bought (refused, or never sent).
   */
  purchase(input: OrderProfilesInput): Promise<Purchase>;
  /** What the vendor would charge per profile now (cents, USD), where it quotes without buying; undefined where it does not. */
  quote?(bundle: string, quantity: number): Promise<number | undefined>;
  /** Forgets the cached catalogue and prices (the vendor's price changed), so the next read asks the vendor. */
  refreshCatalogue(): void;
  /**
   * The profiles of the order placed with this reference, or undefined when the vendor has none.
   * `placed` (when known) lets a vendor whose orders may lack the reference recognise the order.
   */
  findOrder(reference: string, placed?: PlacedOrder): Promise<SuppliedProfile[] | undefined>;
  /** The vendor's orders placed in a window, a page at a time (the audit against ours, record 0161). */
  listOrders(window: OrderWindow): Promise<{ orders: VendorOrder[]; nextPage: number | null }>;
  /** What the vendor says of a profile now, in our terms; `unknown` when it does not know the ICCID. */
  profileReport(iccid: string): Promise<ProfileReport>;
  /**
   * Verifies a vendor callback's signature on its raw body and reads it into reports (none for
   * callbacks that say nothing about a profile). `forged`: no or a wrong signature;
   * `malformed`: signed but unreadable.
   */
  parseCallback(callback: SupplierCallback): Promise<ProfileReport[]>;
  suspendProfile(iccid: string): Promise<void>;
  resumeProfile(iccid: string): Promise<void>;
  /** Ends a profile for good (a cancelled eSIM, or one we could not record); unused, it is refunded where the vendor offers it. Idempotent. */
  terminateProfile(iccid: string): Promise<Termination>;
  /**
   * Top-ups (record 0245), where the adapter has them: one purchase of `bundle` onto the profile
   * (SupplierError only when nothing was bought; `unsupported` when the profile cannot take it); whether
   * a top-up placed at `since` is on the profile (asked before buying again after a doubt).
   */
  topUp?(input: { reference: string; iccid: string; bundle: string }): Promise<TopupPurchase>;
  findTopup?(placed: TopupPlaced): Promise<boolean>;
  /**
   * The vendor's own list of what can top the profile up, where it has one (Airalo, record 0248); none
   * when the profile can take nothing (recycled). Without it, offers come from our live catalogue (record 0245).
   */
  topupOffers?(iccid: string): Promise<VendorTopupOffer[]>;
  /** Whether the vendor has refunded a profile whose refund it reviews (`requested` by `terminateProfile`). */
  refundStatus(iccid: string, vendorRefundId: string | null): Promise<'pending' | 'succeeded'>;
}

/** What can be done to a live profile at the supplier. */
export type ProfileAction = 'suspend' | 'resume' | 'terminate';

/**
 * Why a supplier call failed: `unavailable` (not configured, unreachable, timed out, 5xx, 429,
 * or the circuit is open), `throttled` (our own limiter kept it from being sent: the vendor's rate
 * budget is spent; never counted by the breaker), `refused` (it answered and said no),
 * `unsupported` (it cannot do this for this profile or bundle), `unknown` (it does not know the
 * bundle or profile), `forged` (a callback whose signature is missing or wrong), `malformed` (a
 * callback that cannot be read).
 */
export type SupplierFailure = 'unavailable' | 'throttled' | 'refused' | 'unsupported' | 'unknown' | 'forged' | 'malformed';

export class SupplierError extends Error {
  override readonly name = 'SupplierError';
  readonly failure: SupplierFailure;
  /** The vendor's HTTP status, when it answered one. */
  readonly status: number | undefined;
  /**
   * Whether the request may have reached the vendor and been acted on (a timeout after it was sent,
   * a 5xx): for a purchase, the outcome is unknown. False when it certainly was not (never sent, a
   * refused connection, an open circuit, our limiter, a 429, or an answer that said no).
   */
  readonly sent: boolean;
  /** The vendor's `Retry-After`, in seconds, when it gave one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(failure: SupplierFailure, message: string, options?: { cause?: unknown; status?: number; sent?: boolean; retryAfterSeconds?: number }) {
    super(message, options);
    this.failure = failure;
    this.status = options?.status;
    this.sent = options?.sent ?? false;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export const isSupplierError = (error: unknown): error is SupplierError => error instanceof SupplierError;

/**
 * What a purchase call that failed came to: in doubt (record 0159) when it may have reached the vendor
 * and been acted on (sent, then a lost answer or a 5xx; the vendor's `Retry-After` kept), and the vendor
 * says within `settleMs` whether it was made; undefined when nothing was bought.
 */
export function inDoubtAfter(
  error: unknown,
  settleMs: number,
): { outcome: 'in_doubt'; retryAfterSeconds: number; settlesWithinSeconds: number; vendorRequestId: null } | undefined {
  if (!isSupplierError(error) || error.failure !== 'unavailable' || !error.sent) return undefined;
  return { outcome: 'in_doubt', retryAfterSeconds: error.retryAfterSeconds ?? 2, settlesWithinSeconds: Math.ceil(settleMs / 1000), vendorRequestId: null };
}
