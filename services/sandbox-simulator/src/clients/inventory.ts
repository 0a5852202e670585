import { ApiError, esimReferenceSchema, internalInventoryContract, isApiError, type ErrorCode, type Esim } from '@connectivity/contracts';
import { createInternalClient, UpstreamFailure, type Caller } from '@connectivity/platform';

export interface InventoryClient {
  /**
   * Records usage on a simulated eSIM and answers it afterwards; inventory's errors are rethrown
   * as they came. The caller's Idempotency-Key goes along, so inventory records the usage once
   * however often the call is retried.
   */
  recordUsage(caller: Caller, esim: string, bytes: number, idempotencyKey?: string): Promise<{ esim: Esim; replayed: boolean }>;
}

const unavailable = (cause: unknown) => new ApiError('internal_error', { message: 'Usage could not be recorded right now; retry later.', cause });

export function createInventoryClient(options: { baseUrl: string; internalToken: string; timeoutMs: number }): InventoryClient {
  const client = createInternalClient({ service: 'inventory', ...options });
  return {
    async recordUsage(caller, esim, bytes, idempotencyKey) {
      // A value that cannot name an eSIM names none: 404, as for an unknown id.
      if (!esimReferenceSchema.safeParse(esim).success) {
        throw new ApiError('resource_not_found', { param: 'esim', message: 'No such eSIM: `esim` is neither an eSIM id nor an ICCID.' });
      }
      try {
        const answer = await client.exchange(internalInventoryContract.recordUsage, {
          params: { id: esim },
          body: { bytes },
          caller,
          headers: idempotencyKey === undefined ? undefined : { 'idempotency-key': idempotencyKey },
        });
        // Inventory answered a retry from its record: the caller is told it is a replay.
        return { esim: answer.body, replayed: answer.headers['idempotent-replayed'] === 'true' };
      } catch (error) {
        if (error instanceof UpstreamFailure || !isApiError(error)) throw unavailable(error);
        // Pass inventory's answer through: same code, param, message, detail and Retry-After.
        throw new ApiError(error.code, {
          param: error.param ?? paramOfEsimError(error.code),
          message: error.message,
          ...(error.detail !== undefined && { detail: error.detail }),
          ...(error.retryAfter !== undefined && { retryAfter: error.retryAfter }),
        });
      }
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
