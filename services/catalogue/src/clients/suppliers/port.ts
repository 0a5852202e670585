import type { SuppliedProfile } from '@connectivity/contracts';
import type { CatalogueBundle } from '../../domain/bundle.ts';

/** A bundle as a supplier sells it: the catalogue fields without our retail price. */
export type SupplierBundle = Omit<CatalogueBundle, 'price_cents'>;

export interface OrderProfilesInput {
  /** Our order id; the supplier de-duplicates on it, so a retried order never buys twice. */
  reference: string;
  bundle: string;
  quantity: number;
}

/**
 * The supplier port: where bundles, their prices and the profiles of an environment come from.
 * The sandbox has a simulated adapter; live has the HTTP adapter for the wholesale supplier,
 * or the unconfigured one until a supplier is set up. Adapters fail only with SupplierError.
 */
export interface Supplier {
  /** Whether this adapter stands for a real supplier (live pricing, rated) or the sandbox. */
  readonly live: boolean;
  listBundles(): Promise<SupplierBundle[]>;
  /** The price of each bundle, in cents, by bundle name: what we sell it for. */
  listPrices(): Promise<Map<string, number>>;
  orderProfiles(input: OrderProfilesInput): Promise<SuppliedProfile[]>;
  suspendProfile(iccid: string): Promise<void>;
  resumeProfile(iccid: string): Promise<void>;
  /** Ends a profile for good (a cancelled eSIM, or one we could not record). Idempotent. */
  terminateProfile(iccid: string): Promise<void>;
}

/** What can be done to a live profile at the supplier. */
export type ProfileAction = 'suspend' | 'resume' | 'terminate';

/**
 * Why a supplier call failed: `unavailable` (not configured, unreachable, timed out, 5xx, or the
 * circuit is open), `refused` (it answered and said no), `unsupported` (it cannot do this for
 * this profile or bundle), `unknown` (it does not know the bundle or profile).
 */
export type SupplierFailure = 'unavailable' | 'refused' | 'unsupported' | 'unknown';

export class SupplierError extends Error {
  override readonly name = 'SupplierError';
  readonly failure: SupplierFailure;

  constructor(failure: SupplierFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.failure = failure;
  }
}

export const isSupplierError = (error: unknown): error is SupplierError => error instanceof SupplierError;
