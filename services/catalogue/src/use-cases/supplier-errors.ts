import { ApiError } from '@connectivity/contracts';
import type { ProfileAction, SupplierError } from '../clients/suppliers/port.ts';

/**
 * Supplier failures as the API reports them (DECISIONS.md "Catalogue" and "When the rarer codes
 * occur"). The supplier's own words stay in our logs, not in the response.
 */
export const supplierErrors = {
  /** Reading the catalogue. */
  catalogue(): ApiError {
    return new ApiError('supplier_unavailable', { message: 'The live catalogue cannot be reached right now; retry later.' });
  },
  /** The catalogue answered, its prices did not. */
  pricing(): ApiError {
    return new ApiError('pricing_unavailable', { message: 'Live prices cannot be had from the supplier right now; retry later.' });
  },
  /** Ordering profiles: any failure is a refusal of the order. */
  order(error: SupplierError, bundle: string): ApiError {
    if (error.failure === 'unknown') {
      return new ApiError('invalid_parameter', { param: 'bundle', message: `No bundle named \`${bundle}\` can be ordered.` });
    }
    if (error.failure === 'unsupported') {
      return new ApiError('capability_not_orderable', { message: `The supplier no longer sells \`${bundle}\`.` });
    }
    return new ApiError('supplier_refused', {
      message:
        error.failure === 'unavailable'
          ? 'The supplier cannot take orders right now; nothing was charged. Retry later.'
          : 'The supplier refused the order; nothing was charged.',
    });
  },
  /** Suspending, resuming or cancelling (terminating) a live profile. */
  profileAction(error: SupplierError, action: ProfileAction): ApiError {
    const verb = action === 'terminate' ? 'cancel' : action;
    if (error.failure === 'unavailable') {
      return new ApiError('supplier_unavailable', { message: `The supplier cannot ${verb} profiles right now; nothing was changed. Retry later.` });
    }
    return new ApiError('capability_not_orderable', { message: `The supplier cannot ${verb} this eSIM.` });
  },
};
