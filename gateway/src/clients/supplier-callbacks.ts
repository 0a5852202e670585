import { ApiError, internalInventoryCallbacksContract, type SupplierCallbackReceipt, type SupplierVendor } from '@connectivity/contracts';
import { createInternalClient, UpstreamFailure } from '@connectivity/platform';

export interface SupplierCallbacksOptions {
  inventoryUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/** Passes a supplier's callback, as received, to inventory (for no account). */
export type PassCallback = (vendor: SupplierVendor, callback: { body_base64: string; headers: Record<string, string> }) => Promise<SupplierCallbackReceipt>;

/**
 * inventory's callback route through the platform's internal client, with the internal token and
 * the request id alone: inventory has the callback verified, stores it and answers. Its refusals
 * (401 a bad signature, 404 not the live supplier) come back as they are; inventory unreachable
 * is our outage, which the vendor retries.
 */
export function createSupplierCallbacks(options: SupplierCallbacksOptions): PassCallback {
  const inventory = createInternalClient({
    service: 'inventory',
    baseUrl: options.inventoryUrl,
    internalToken: options.internalToken,
    timeoutMs: options.timeoutMs,
  });
  return async (vendor, callback) => {
    try {
      return await inventory.call(internalInventoryCallbacksContract.receiveSupplierCallback, { params: { vendor }, body: callback });
    } catch (error) {
      if (error instanceof UpstreamFailure)
        throw new ApiError('internal_error', { message: 'The callback could not be taken now; send it again.', cause: error });
      throw error;
    }
  };
}
