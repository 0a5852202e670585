import type { Caller } from '@connectivity/platform';
import { isSupplierError, type ProfileAction } from '../clients/suppliers/port.ts';
import { supplierErrors } from './supplier-errors.ts';
import type { CatalogueDeps } from './live-catalogue.ts';

/** Suspends, resumes or terminates a profile at the caller's environment's supplier. */
export async function actOnProfile(deps: CatalogueDeps, caller: Caller, iccid: string, action: ProfileAction): Promise<void> {
  const supplier = deps.suppliers[caller.environment];
  const calls = {
    suspend: () => supplier.suspendProfile(iccid),
    resume: () => supplier.resumeProfile(iccid),
    terminate: () => supplier.terminateProfile(iccid),
  };
  try {
    await calls[action]();
  } catch (error) {
    if (!isSupplierError(error)) throw error;
    deps.logger.warn({ err: error.message, failure: error.failure, action }, 'supplier profile action failed');
    throw supplierErrors.profileAction(error, action);
  }
}
