import { ApiError, type ProfileReport, type SuppliedProfile, type SupplierVendor } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { isSupplierError, type PlacedOrder } from '../clients/suppliers/port.ts';
import type { CatalogueDeps } from './live-catalogue.ts';

const unavailable = () => new ApiError('supplier_unavailable', { message: 'The supplier cannot be asked right now; retry later.' });

/**
 * The profiles the supplier made for the order placed under `reference`, asked before buying
 * again after a crash; 404 when the supplier has no such order.
 */
export async function findSupplierOrder(deps: CatalogueDeps, caller: Caller, reference: string, placed: Partial<PlacedOrder> = {}): Promise<SuppliedProfile[]> {
  const { since, bundle, quantity } = placed;
  let profiles: SuppliedProfile[] | undefined;
  try {
    profiles = await deps.suppliers[caller.environment].findOrder(
      reference,
      since !== undefined && bundle !== undefined && quantity !== undefined ? { since, bundle, quantity } : undefined,
    );
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, reference }, 'supplier order lookup failed');
    throw unavailable();
  }
  if (!profiles) throw new ApiError('resource_not_found', { param: 'reference', message: `The supplier has no order \`${reference}\`.` });
  return profiles;
}

/** What the supplier says of a profile now (reconciliation); 404 when it does not know the ICCID. */
export async function reportProfile(deps: CatalogueDeps, caller: Caller, iccid: string): Promise<ProfileReport> {
  try {
    return await deps.suppliers[caller.environment].profileReport(iccid);
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    if (error.failure === 'unknown') throw new ApiError('resource_not_found', { param: 'iccid', message: 'The supplier does not know this eSIM.' });
    deps.logger.warn({ err: error.message, failure: error.failure }, 'supplier profile report failed');
    throw unavailable();
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
    if (error.failure === 'forged') throw new ApiError('key_invalid', { message: 'The callback signature is missing or wrong.' });
    if (error.failure === 'malformed') throw new ApiError('invalid_parameter', { param: 'body_base64', message: 'The callback body cannot be read.' });
    throw error;
  }
}
