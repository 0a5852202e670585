import { errorMessage } from '@connectivity/platform';
import { isSupplierError, type Supplier } from '../clients/suppliers/port.ts';
import { retailPriceCents } from '../domain/pricing.ts';
import type { CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';

/**
 * The price check before a live purchase, an order's or a top-up's (record 0160): where the vendor
 * quotes without buying, a price that now sells above what was charged refuses the purchase before
 * anything is bought (`pricing_unavailable`, and the cached catalogue is dropped). A quote that comes
 * too late changes nothing: the purchase's own answer carries the price, which is checked too. A vendor
 * that is down or answers 5xx to a quote is not asked to buy: that purchase could only be refused or
 * left in doubt, with the account's money held meanwhile.
 */
export async function checkVendorPrice(
  deps: Pick<CatalogueDeps, 'marginPercent' | 'logger'>,
  supplier: Supplier,
  input: { bundle: string; quantity: number; price_cents: number },
): Promise<void> {
  if (!supplier.live || !supplier.quote) return;
  const cost = await supplier.quote(input.bundle, input.quantity).catch((error: unknown) => {
    if (isSupplierError(error) && error.failure === 'unavailable' && (!error.sent || error.status !== undefined)) throw error;
    deps.logger.warn({ bundle: input.bundle, err: errorMessage(error) }, 'the vendor’s quote could not be had; the purchase’s answer is checked instead');
    return undefined;
  });
  const retail = cost === undefined ? undefined : retailPriceCents(cost, deps.marginPercent);
  if (retail === undefined || retail <= input.price_cents) return;
  supplier.refreshCatalogue();
  deps.logger.warn({ bundle: input.bundle, charged: input.price_cents, now: retail }, 'the vendor’s price rose above the charge; refused before buying');
  throw supplierErrors.priceChanged();
}

/** A purchase in doubt (record 0159) as catalogue answers it to inventory. */
export function inDoubtOutcome(purchase: { retryAfterSeconds: number; settlesWithinSeconds: number; vendorRequestId: string | null }) {
  return {
    outcome: 'in_doubt' as const,
    retry_after_seconds: Math.max(1, purchase.retryAfterSeconds),
    settles_within_seconds: Math.max(1, purchase.settlesWithinSeconds),
    vendor_request_id: purchase.vendorRequestId,
  };
}
