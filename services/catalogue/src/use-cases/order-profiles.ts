import { ApiError, type PurchaseOutcome, type SuppliedProfile } from '@connectivity/contracts';
import { domainMetrics, type Caller } from '@connectivity/platform';
import { isSupplierError } from '../clients/suppliers/port.ts';
import { asTenant } from '../clients/suppliers/tenant.ts';
import { retailPriceCents } from '../domain/pricing.ts';
import { assertLiveOrdering, type CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';
import { checkVendorPrice, inDoubtOutcome } from './vendor-purchase.ts';

/**
 * A purchase of profiles from the caller's environment's supplier, for an order inventory is about to
 * record (records 0159 and 0160): where the vendor quotes without buying (eSIM Go), its price is
 * checked first (`checkVendorPrice`). Bought: the profiles, with what the
 * vendor's own price sells at under our rule (inventory releases them when it is above the charge).
 * In doubt: say so, for inventory to find the order later. An error means nothing was bought.
 */
export async function purchaseProfiles(
  deps: CatalogueDeps,
  caller: Caller,
  input: { reference: string; bundle: string; quantity: number; price_cents?: number | undefined },
): Promise<PurchaseOutcome> {
  // Checked again here: the switch may have been turned off since the bundle was looked up.
  if (caller.environment === 'live') await assertLiveOrdering(deps, caller.accountId);
  const supplier = deps.suppliers[caller.environment];
  // With no supplier configured, live orders are refused (record 0256).
  if (supplier.live && supplier.vendor === undefined) {
    throw new ApiError('supplier_refused', { message: 'No live supplier is configured: live orders cannot be placed.' });
  }
  const retail = (cost: number) => retailPriceCents(cost, deps.marginPercent);
  const counted = (outcome: string) => {
    if (supplier.vendor) domainMetrics.supplierPurchase(supplier.vendor, outcome);
  };
  return asTenant(caller.accountId, async () => {
    try {
      if (input.price_cents !== undefined) await checkVendorPrice(deps, supplier, { ...input, price_cents: input.price_cents });
      const purchase = await supplier.purchase(input);
      if (purchase.outcome === 'in_doubt') {
        counted('in_doubt');
        return inDoubtOutcome(purchase);
      }
      const retailNow = purchase.unitCostCents === null || !supplier.live ? null : retail(purchase.unitCostCents);
      const above = retailNow !== null && input.price_cents !== undefined && retailNow > input.price_cents;
      if (above) supplier.refreshCatalogue();
      counted(above ? 'price_changed' : 'bought');
      return { outcome: 'bought', profiles: purchase.profiles, retail_price_cents: retailNow };
    } catch (error) {
      if (!isSupplierError(error)) throw error;
      counted(error.failure === 'throttled' ? 'unavailable' : error.failure);
      deps.logger.warn({ err: error.message, failure: error.failure, reference: input.reference }, 'supplier order failed');
      throw supplierErrors.order(error, input.bundle);
    }
  });
}

/**
 * `count` simulated profiles of a sandbox bundle at once, for the stock sandbox orders take
 * from: the simulated supplier makes them up and keeps no record, so a profile handed out
 * later is the same as one made for the order.
 */
export async function stockSandboxProfiles(deps: CatalogueDeps, caller: Caller, input: { bundle: string; count: number }): Promise<SuppliedProfile[]> {
  if (caller.environment !== 'test') throw new ApiError('live_key_test_resource');
  const purchase = await purchaseProfiles(deps, caller, { reference: 'sandbox-stock', bundle: input.bundle, quantity: input.count });
  if (purchase.outcome !== 'bought') throw new Error('the simulated supplier is never in doubt');
  return purchase.profiles;
}
