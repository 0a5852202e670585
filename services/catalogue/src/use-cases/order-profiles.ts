import { ApiError, type SuppliedProfile } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { isSupplierError } from '../clients/suppliers/port.ts';
import { supplierErrors } from './supplier-errors.ts';
import { assertLiveOrdering, type CatalogueDeps } from './live-catalogue.ts';

/** Profiles from the caller's environment's supplier, for an order inventory is about to record. */
export async function orderProfiles(
  deps: CatalogueDeps,
  caller: Caller,
  input: { reference: string; bundle: string; quantity: number },
): Promise<SuppliedProfile[]> {
  // Checked again here: the switch may have been turned off since the bundle was looked up.
  if (caller.environment === 'live') await assertLiveOrdering(deps, caller.accountId);
  try {
    return await deps.suppliers[caller.environment].orderProfiles(input);
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, reference: input.reference }, 'supplier order failed');
    throw supplierErrors.order(error, input.bundle);
  }
}

/**
 * `count` simulated profiles of a sandbox bundle at once, for the stock sandbox orders take
 * from: the simulated supplier makes them up and keeps no record, so a profile handed out
 * later is the same as one made for the order.
 */
export async function stockSandboxProfiles(deps: CatalogueDeps, caller: Caller, input: { bundle: string; count: number }): Promise<SuppliedProfile[]> {
  if (caller.environment !== 'test') throw new ApiError('live_key_test_resource');
  return orderProfiles(deps, caller, { reference: 'sandbox-stock', bundle: input.bundle, quantity: input.count });
}
