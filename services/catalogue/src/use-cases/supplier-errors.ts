import { ApiError } from '@connectivity/contracts';
import type { ProfileAction, SupplierError } from '../clients/suppliers/port.ts';

/** How long to wait before asking again, when the vendor did not say (seconds). */
const DEFAULT_RETRY_SECONDS = 5;

const retryAfter = (error: SupplierError): string => String(Math.max(1, error.retryAfterSeconds ?? DEFAULT_RETRY_SECONDS));

/**
 * Supplier failures as the API reports them (records 0256 and
 * 0258): `supplier_unavailable` (down, timed out, our limiter, the circuit
 * open) with `Retry-After` on every 503; `supplier_refused` only where the vendor said no. The
 * supplier's own words stay in our logs, not in the response.
 */
export const supplierErrors = {
  /** Reading the catalogue. */
  catalogue(): ApiError {
    return new ApiError('supplier_unavailable', { message: 'The live catalogue cannot be reached right now; retry later.', retryAfter: '30' });
  },
  /** The catalogue answered, its prices did not. */
  pricing(): ApiError {
    return new ApiError('pricing_unavailable', { message: 'Live prices cannot be had from the supplier right now; retry later.', retryAfter: '30' });
  },
  /** The vendor's price for the bundle is above what the order was priced at (record 0160). */
  priceChanged(): ApiError {
    return new ApiError('pricing_unavailable', {
      message: 'The supplier’s price for this bundle has just changed; nothing was charged. List the bundles again and retry.',
      retryAfter: '5',
    });
  },
  /** Buying profiles: nothing was bought. */
  order(error: SupplierError, bundle: string): ApiError {
    switch (error.failure) {
      case 'unknown':
        return new ApiError('invalid_parameter', { param: 'bundle', message: `No bundle named \`${bundle}\` can be ordered.` });
      case 'unsupported':
        return new ApiError('capability_not_orderable', { message: `The supplier no longer sells \`${bundle}\`.` });
      case 'unavailable':
      case 'throttled':
        return new ApiError('supplier_unavailable', {
          message: 'The supplier cannot take orders right now; nothing was charged. Retry later.',
          retryAfter: retryAfter(error),
        });
      default:
        return new ApiError('supplier_refused', { message: 'The supplier refused the order; nothing was charged.' });
    }
  },
  /** Asking the supplier something (finding an order, a report, a refund, its orders). */
  unavailable(error?: SupplierError): ApiError {
    return new ApiError('supplier_unavailable', {
      message: 'The supplier cannot be asked right now; retry later.',
      retryAfter: error ? retryAfter(error) : String(DEFAULT_RETRY_SECONDS),
    });
  },
  /** Suspending, resuming or cancelling (terminating) a live profile. */
  profileAction(error: SupplierError, action: ProfileAction): ApiError {
    const verb = action === 'terminate' ? 'cancel' : action;
    if (error.failure === 'unavailable' || error.failure === 'throttled') {
      return new ApiError('supplier_unavailable', {
        message: `The supplier cannot ${verb} profiles right now; nothing was changed. Retry later.`,
        retryAfter: retryAfter(error),
      });
    }
    return new ApiError('capability_not_orderable', { message: `The supplier cannot ${verb} this eSIM.` });
  },
};
