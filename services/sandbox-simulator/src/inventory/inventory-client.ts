import { ApiError, INTERNAL_HEADERS, type ErrorCode, errorResponseSchema, internalInventoryContract, type Esim } from '@connectivity/contracts';
import type { Identity } from '@connectivity/platform';
import { initClient } from '@ts-rest/core';

export interface InventoryClient {
  /** Records usage on a simulated eSIM and answers it afterwards; inventory's errors are rethrown as they came. */
  recordUsage(identity: Identity, requestId: string, esim: string, bytes: number): Promise<Esim>;
}

export function createInventoryClient(options: { baseUrl: string; internalToken: string; timeoutMs: number }): InventoryClient {
  const client = initClient(internalInventoryContract, { baseUrl: options.baseUrl.replace(/\/+$/, ''), throwOnUnknownStatus: false });
  return {
    async recordUsage(identity, requestId, esim, bytes) {
      let response;
      try {
        response = await client.recordUsage({
          params: { id: esim },
          body: { bytes },
          headers: {
            [INTERNAL_HEADERS.token]: options.internalToken,
            [INTERNAL_HEADERS.accountId]: identity.accountId,
            [INTERNAL_HEADERS.environment]: identity.environment,
            [INTERNAL_HEADERS.keyId]: identity.keyId,
            [INTERNAL_HEADERS.requestId]: requestId,
          },
          fetchOptions: { signal: AbortSignal.timeout(options.timeoutMs) },
        });
      } catch (cause) {
        throw new ApiError('internal_error', { message: 'Usage could not be recorded right now; retry later.', cause });
      }
      if (response.status === 200) return response.body;
      // Pass inventory's answer through: same code, param, message and detail.
      const parsed = errorResponseSchema.safeParse(response.body);
      if (!parsed.success) {
        throw new ApiError('internal_error', { message: 'Usage could not be recorded right now; retry later.' });
      }
      const { code, param, message, detail } = parsed.data.error;
      throw new ApiError(code, { param: param ?? paramOfEsimError(code), message, detail });
    },
  };
}

/**
 * Inventory's test/live boundary errors name no parameter (on its own routes the eSIM is in the
 * path); in this call the eSIM is the body field `esim`, so the caller is told that is at fault.
 */
function paramOfEsimError(code: ErrorCode): string | undefined {
  return code === 'test_key_live_resource' || code === 'live_key_test_resource' ? 'esim' : undefined;
}
