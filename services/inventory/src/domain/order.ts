import { ApiError, type Environment, type InternalBundle } from '@connectivity/contracts';

/**
 * The bundle's data in bytes as its supplier counts a megabyte (record 0231: the catalogue says);
 * null (no limit, no thresholds) for unlimited bundles.
 */
export function dataLimitBytes(bundle: Pick<InternalBundle, 'data_limit_bytes' | 'unlimited'>): number | null {
  return bundle.unlimited ? null : bundle.data_limit_bytes;
}

export interface OrderPrice {
  price_cents: number;
  total_cents: number;
  currency: 'USD';
  /** Whether money moves: live orders only. */
  rated: boolean;
}

export function priceOrder(bundle: Pick<InternalBundle, 'price_cents'>, quantity: number, environment: Environment): OrderPrice {
  return { price_cents: bundle.price_cents, total_cents: bundle.price_cents * quantity, currency: 'USD', rated: environment === 'live' };
}

/** Whether the bundle can be ordered in `environment` (record 0256). */
export function assertOrderable(bundle: Pick<InternalBundle, 'name' | 'retired' | 'environments'>, environment: Environment): void {
  if (bundle.retired) {
    throw new ApiError('capability_not_orderable', { message: `The bundle \`${bundle.name}\` is retired and can no longer be ordered.` });
  }
  if (!bundle.environments.includes(environment)) {
    throw new ApiError('capability_not_live', { message: `The bundle \`${bundle.name}\` exists only in the sandbox catalogue.` });
  }
}

/** A live account must be verified before it can hold money for an order (record 0256). */
export function assertVerified(account: { verified: boolean } | undefined): void {
  if (account?.verified) return;
  throw new ApiError('verification_required', { message: 'Live orders need a verified account; contact support to verify it.' });
}
