import type { Termination } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { isSupplierError, type ProfileAction } from '../clients/suppliers/port.ts';
import { asTenant } from '../clients/suppliers/tenant.ts';
import type { CatalogueDeps } from './live-catalogue.ts';
import { supplierErrors } from './supplier-errors.ts';

async function acting<T>(deps: CatalogueDeps, caller: Caller, action: ProfileAction, work: () => Promise<T>): Promise<T> {
  try {
    return await asTenant(caller.accountId, work);
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, action }, 'supplier profile action failed');
    throw supplierErrors.profileAction(error, action);
  }
}

/** Suspends or resumes a profile at the caller's environment's supplier. */
export async function actOnProfile(deps: CatalogueDeps, caller: Caller, iccid: string, action: 'suspend' | 'resume'): Promise<void> {
  const supplier = deps.suppliers[caller.environment];
  await acting(deps, caller, action, () => (action === 'suspend' ? supplier.suspendProfile(iccid) : supplier.resumeProfile(iccid)));
}

/** Ends a profile for good at the caller's environment's supplier; says what became of its money (record 0158). */
export async function terminateProfile(deps: CatalogueDeps, caller: Caller, iccid: string): Promise<Termination> {
  const ended = await acting(deps, caller, 'terminate', () => deps.suppliers[caller.environment].terminateProfile(iccid));
  return { iccid, status: 'terminated', refund: ended.refund, vendor_refund_id: ended.vendorRefundId };
}
