import { ApiError, type ProfileReport, type SuppliedProfile, type SupplierVendor, type VendorOrder } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { isSupplierError, type OrderWindow, type PlacedOrder } from '../clients/suppliers/port.ts';
import { asBackground, asTenant } from '../clients/suppliers/tenant.ts';
import type { CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';

/**
 * The profiles the supplier made for the order placed under `reference`, asked before buying
 * again after a crash; 404 when the supplier has no such order.
 */
export async function findSupplierOrder(deps: CatalogueDeps, caller: Caller, reference: string, placed: Partial<PlacedOrder> = {}): Promise<SuppliedProfile[]> {
  const { since, bundle, quantity } = placed;
  let profiles: SuppliedProfile[] | undefined;
  try {
    profiles = await asTenant(caller.accountId, () =>
      deps.suppliers[caller.environment].findOrder(
        reference,
        since !== undefined && bundle !== undefined && quantity !== undefined ? { since, bundle, quantity } : undefined,
      ),
    );
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, reference }, 'supplier order lookup failed');
    throw supplierErrors.unavailable(error);
  }
  if (!profiles) throw new ApiError('resource_not_found', { param: 'reference', message: `The supplier has no order \`${reference}\`.` });
  return profiles;
}

/** What the supplier says of a profile now (reconciliation); 404 when it does not know the ICCID. */
export async function reportProfile(deps: CatalogueDeps, caller: Caller, iccid: string): Promise<ProfileReport> {
  try {
    return await asTenant(caller.accountId, () => deps.suppliers[caller.environment].profileReport(iccid));
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    if (error.failure === 'unknown') throw new ApiError('resource_not_found', { param: 'iccid', message: 'The supplier does not know this eSIM.' });
    deps.logger.warn({ err: error.message, failure: error.failure }, 'supplier profile report failed');
    throw supplierErrors.unavailable(error);
  }
}

/** Whether the vendor has refunded a terminated profile whose refund it reviews (record 0158); 404 when it knows no order holding it. */
export async function refundStatus(deps: CatalogueDeps, caller: Caller, iccid: string, vendorRefundId: string | undefined): Promise<'pending' | 'succeeded'> {
  try {
    return await asTenant(caller.accountId, () => deps.suppliers[caller.environment].refundStatus(iccid, vendorRefundId ?? null));
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    if (error.failure === 'unknown') throw new ApiError('resource_not_found', { param: 'iccid', message: 'The supplier knows no order holding this eSIM.' });
    deps.logger.warn({ err: error.message, failure: error.failure }, 'supplier refund status failed');
    throw supplierErrors.unavailable(error);
  }
}

/**
 * How long each of the audit's vendor calls may wait for room under the vendor's rate limit (record
 * 0268): a page of eSIM Go orders is one call per order for its reference, more than the system's
 * share lets through within one call's timeout.
 */
const AUDIT_WAIT_MS = 10_000;

/** The live supplier's orders placed in a window, for the audit against ours (record 0161). */
export async function listVendorOrders(deps: CatalogueDeps, window: OrderWindow): Promise<{ orders: VendorOrder[]; next_page: number | null }> {
  try {
    const { orders, nextPage } = await asBackground(AUDIT_WAIT_MS, () => deps.suppliers.live.listOrders(window));
    return { orders, next_page: nextPage };
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure }, 'supplier order list failed');
    throw supplierErrors.unavailable(error);
  }
}

/**
 * A vendor's callback, verified on its raw body and read into reports by the live supplier's
 * adapter; nothing is stored here. A vendor other than the configured one is not ours to hear.
 */
export async function parseSupplierCallback(
  deps: CatalogueDeps,
  vendor: SupplierVendor,
  input: { body_base64: string; headers: Record<string, string> },
): Promise<ProfileReport[]> {
  const live = deps.suppliers.live;
  if (live.vendor !== vendor) throw new ApiError('resource_not_found', { param: 'vendor', message: `\`${vendor}\` is not the live supplier.` });
  const headers = Object.fromEntries(Object.entries(input.headers).map(([name, value]) => [name.toLowerCase(), value]));
  try {
    return await live.parseCallback({ rawBody: Buffer.from(input.body_base64, 'base64'), headers });
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    // Logged without the body or the signature: a forged call learns nothing from us.
    deps.logger.warn({ vendor, failure: error.failure, err: error.message }, 'supplier callback refused');
    // A code of its own (record 0204): `key_invalid` is about API keys, and its page says so.
    if (error.failure === 'forged') throw new ApiError('signature_invalid');
    if (error.failure === 'malformed') throw new ApiError('invalid_parameter', { param: 'body_base64', message: 'The callback body cannot be read.' });
    throw error;
  }
}
