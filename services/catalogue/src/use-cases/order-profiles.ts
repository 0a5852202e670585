import { ApiError, type PurchaseOutcome, type SuppliedProfile } from '@connectivity/contracts';
import { domainMetrics, errorMessage, type Caller } from '@connectivity/platform';
import { isSupplierError } from '../clients/suppliers/port.ts';
import { asTenant } from '../clients/suppliers/tenant.ts';
import { retailPriceCents } from '../domain/pricing.ts';
import { assertLiveOrdering, type CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';

/**
 * A purchase of profiles from the caller's environment's supplier, for an order inventory is about to
 * record (records 0159 and 0160): where the vendor quotes without buying (eSIM Go), its price is
 * checked first, and a price above what the order was charged refuses it before anything is bought
 * (`pricing_unavailable`, and the cached catalogue is dropped). Bought: the profiles, with what the
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
      if (supplier.live && supplier.quote && input.price_cents !== undefined) {
        // A quote that comes too late changes nothing: the order's own answer carries the price,
        // which is checked too (and the profiles released when it is above the charge). A vendor
        // that is down or answers 5xx to a quote is not asked to buy: that purchase could only be
        // refused or left in doubt, with the account's money held meanwhile (record 0160).
        const cost = await supplier.quote(input.bundle, input.quantity).catch((error: unknown) => {
          if (isSupplierError(error) && error.failure === 'unavailable' && (!error.sent || error.status !== undefined)) throw error;
          deps.logger.warn({ bundle: input.bundle, err: errorMessage(error) }, 'the vendor’s quote could not be had; the order’s answer is checked instead');
          return undefined;
        });
        if (cost !== undefined && retail(cost) > input.price_cents) {
          supplier.refreshCatalogue();
          deps.logger.warn(
            { bundle: input.bundle, charged: input.price_cents, now: retail(cost) },
            'the vendor’s price rose above the order’s; refused before buying',
          );
          throw supplierErrors.priceChanged();
        }
      }
      const purchase = await supplier.purchase(input);
      if (purchase.outcome === 'in_doubt') {
        counted('in_doubt');
        return {
          outcome: 'in_doubt',
          retry_after_seconds: Math.max(1, purchase.retryAfterSeconds),
          settles_within_seconds: Math.max(1, purchase.settlesWithinSeconds),
          vendor_request_id: purchase.vendorRequestId,
        };
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
