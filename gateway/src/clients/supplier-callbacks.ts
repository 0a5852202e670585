import { ApiError, internalSupplierCallbacksContract, type SupplierCallbackReceipt, type SupplierVendor } from '@connectivity/contracts';
import { createInternalClient, UpstreamFailure } from '@connectivity/platform';

export interface SupplierCallbacksOptions {
  catalogueUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/** Passes a supplier's callback, as received, to catalogue (for no account). */
export type PassCallback = (vendor: SupplierVendor, callback: { body_base64: string; headers: Record<string, string> }) => Promise<SupplierCallbackReceipt>;

/**
 * catalogue's callback route through the platform's internal client, with the internal token and
 * the request id alone: catalogue, which holds the vendor's secret, verifies the callback and
 * answers once its reports are on the bus for inventory (record 0262). Its refusals (401 a bad
 * signature, 404 not the live supplier) come back as they are; catalogue unreachable is our
 * outage, which the vendor retries.
 */
export function createSupplierCallbacks(options: SupplierCallbacksOptions): PassCallback {
  const catalogue = createInternalClient({
    service: 'catalogue',
    baseUrl: options.catalogueUrl,
    internalToken: options.internalToken,
    timeoutMs: options.timeoutMs,
  });
  return async (vendor, callback) => {
    try {
      return await catalogue.call(internalSupplierCallbacksContract.receiveSupplierCallback, { params: { vendor }, body: callback });
    } catch (error) {
      if (error instanceof UpstreamFailure)
        throw new ApiError('internal_error', { message: 'The callback could not be taken now; send it again.', cause: error });
      throw error;
    }
  };
}
