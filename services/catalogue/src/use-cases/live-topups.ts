import { ApiError, type InternalBundle, type TopupPurchaseOutcome } from '@connectivity/contracts';
import { domainMetrics, errorMessage, type Caller } from '@connectivity/platform';
import { isSupplierError, type Supplier, type TopupPlaced, type VendorTopupOffer } from '../clients/suppliers/port.ts';
import { asTenant } from '../clients/suppliers/tenant.ts';
import { toInternalBundle, type CatalogueBundle } from '../domain/bundle.ts';
import { canTopUp } from '../domain/topup-offers.ts';
import { retailPriceCents } from '../domain/pricing.ts';
import { assertLiveOrdering, liveCatalogue, type CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';
import { checkVendorPrice, inDoubtOutcome } from './vendor-purchase.ts';

type TopupSupplier = Supplier & Required<Pick<Supplier, 'topUp' | 'findTopup'>>;

/**
 * The live supplier, if it tops profiles up (records 0245, 0248); otherwise the refusal of record 0244: an
 * unconfigured supplier refuses as live orders do, a vendor whose top-ups are not built is not orderable.
 */
async function topupSupplier(deps: CatalogueDeps, caller: Caller): Promise<TopupSupplier> {
  await assertLiveOrdering(deps, caller.accountId);
  const supplier = deps.suppliers.live;
  if (supplier.vendor === undefined) throw new ApiError('supplier_refused', { message: 'No live supplier is configured: live top-ups cannot be bought.' });
  if (!supplier.topUp || !supplier.findTopup) {
    throw new ApiError('capability_not_orderable', { message: `Live top-ups are not offered by ${supplier.vendor} yet.` });
  }
  return supplier as TopupSupplier;
}

/**
 * The live bundles that can top up the profile `iccid`, bought with `bundle`, cheapest first, priced as
 * live orders are (our margin over the vendor's cost). Where the vendor lists what the profile can take
 * (Airalo, record 0248), its list, under the profile's countries; otherwise our live catalogue's bundles
 * under record 0240's rule (its countries covered, its kind): eSIM Go's document lists no compatible
 * bundles, only a check per bundle, and a check per candidate would spend the vendor's rate budget
 * (EG-17) on a listing: the bundle chosen is checked once, when it is bought (record 0245).
 */
export async function liveTopupOffers(deps: CatalogueDeps, caller: Caller, query: { bundle: string; iccid: string }): Promise<InternalBundle[]> {
  const supplier = await topupSupplier(deps, caller);
  const catalogue = await liveCatalogue(deps);
  const base = catalogue.find((b) => b.name === query.bundle);
  if (!base) throw new ApiError('resource_not_found', { param: 'bundle', message: `No live bundle named \`${query.bundle}\`.` });
  const offers = supplier.topupOffers ? await vendorOffers(deps, caller, supplier.topupOffers.bind(supplier), base, query.iccid) : catalogue;
  return offers
    .filter((offer) => canTopUp(base, offer))
    .sort((a, b) => a.price_cents - b.price_cents || a.name.localeCompare(b.name))
    .map((offer) => toInternalBundle(offer, true, ['live']));
}

/** The vendor's own offers for the profile as our bundles: the profile's countries and region, our price over their cost. */
async function vendorOffers(
  deps: CatalogueDeps,
  caller: Caller,
  list: (iccid: string) => Promise<VendorTopupOffer[]>,
  base: CatalogueBundle,
  iccid: string,
): Promise<CatalogueBundle[]> {
  let listed: VendorTopupOffer[];
  try {
    listed = await asTenant(caller.accountId, () => list(iccid));
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, iccid }, 'supplier top-up offers could not be had');
    // A profile the vendor does not know can take nothing; otherwise the vendor cannot be asked now.
    if (error.failure === 'unknown') return [];
    throw supplierErrors.unavailable(error);
  }
  return listed.map(({ costCents, ...offer }) => ({
    ...offer,
    countries: base.countries,
    region: base.region,
    validity_start: base.validity_start,
    install_window_days: null,
    retired: false,
    price_cents: retailPriceCents(costCents, deps.marginPercent),
  }));
}

/**
 * One live top-up purchase (records 0159, 0160, 0245): where the vendor quotes, a price above what the
 * integrator is charged refuses it before anything is bought. An error means nothing was bought.
 */
export async function purchaseTopup(
  deps: CatalogueDeps,
  caller: Caller,
  input: { reference: string; iccid: string; bundle: string; price_cents: number },
): Promise<TopupPurchaseOutcome> {
  const supplier = await topupSupplier(deps, caller);
  const retail = (cost: number) => retailPriceCents(cost, deps.marginPercent);
  const counted = (outcome: string) => domainMetrics.supplierPurchase(supplier.vendor!, `topup_${outcome}`);
  return asTenant(caller.accountId, async () => {
    try {
      await checkVendorPrice(deps, supplier, { bundle: input.bundle, quantity: 1, price_cents: input.price_cents });
      const purchase = await supplier.topUp(input);
      if (purchase.outcome === 'in_doubt') {
        counted('in_doubt');
        return inDoubtOutcome(purchase);
      }
      counted('bought');
      return { outcome: 'bought', retail_price_cents: purchase.unitCostCents === null ? null : retail(purchase.unitCostCents) };
    } catch (error) {
      if (!isSupplierError(error)) throw error;
      counted(error.failure === 'throttled' ? 'unavailable' : error.failure);
      deps.logger.warn({ err: error.message, failure: error.failure, reference: input.reference }, 'supplier top-up failed');
      if (error.failure === 'unsupported') {
        throw new ApiError('invalid_parameter', { param: 'bundle', message: `\`${input.bundle}\` cannot top up this eSIM at the supplier.` });
      }
      throw supplierErrors.order(error, input.bundle);
    }
  });
}

/** Whether the in-doubt top-up `placed` is on the profile at the vendor; 503 when the vendor cannot be asked. */
export async function findTopup(deps: CatalogueDeps, caller: Caller, placed: TopupPlaced): Promise<boolean> {
  const supplier = await topupSupplier(deps, caller);
  try {
    return await asTenant(caller.accountId, () => supplier.findTopup(placed));
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: errorMessage(error), iccid: placed.iccid }, 'supplier top-up could not be looked for');
    if (error.failure === 'unknown') return false;
    throw supplierErrors.unavailable(error);
  }
}
