import {
  ApiError,
  INTERNAL_HEADERS,
  errorResponseSchema,
  internalContract,
  internalSupplyContract,
  isErrorCode,
  type InternalBundle,
  type SuppliedProfile,
} from '@connectivity/contracts';
import { currentRequestId, newId } from '@connectivity/platform';
import { initClient } from '@ts-rest/core';
import type { Caller } from '../domain/access.ts';

/** What inventory may ask the supplier to do to a live profile; `terminate` ends it for good. */
export type ProfileAction = 'suspend' | 'resume' | 'terminate';

export interface CatalogueClientOptions {
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
}

/** What inventory asks of catalogue: bundles for orders, and live supply. */
export interface CatalogueClient {
  getBundle(caller: Caller, name: string): Promise<InternalBundle>;
  orderProfiles(caller: Caller, input: { reference: string; bundle: string; quantity: number }): Promise<SuppliedProfile[]>;
  profileAction(caller: Caller, iccid: string, action: ProfileAction): Promise<void>;
}

/** An error answered by catalogue, as the same catalogue error; anything else is our failure. */
function rethrow(status: number, body: unknown): never {
  const parsed = errorResponseSchema.safeParse(body);
  if (parsed.success && isErrorCode(parsed.data.error.code)) {
    const { code, message, param, detail } = parsed.data.error;
    throw new ApiError(code, { message, ...(param !== undefined && { param }), ...(detail !== undefined && { detail }) });
  }
  throw new Error(`catalogue answered ${status} without an error object`);
}

/** The typed client of catalogue's internal contract (ts-rest), with a timeout per call. */
export function createCatalogueClient(options: CatalogueClientOptions): CatalogueClient {
  const clientOptions = { baseUrl: options.baseUrl.replace(/\/+$/, ''), baseHeaders: { [INTERNAL_HEADERS.token]: options.internalToken } };
  const bundles = initClient(internalContract.catalogue, clientOptions);
  const supply = initClient(internalSupplyContract, clientOptions);

  const headersFor = (caller: Caller) => ({
    [INTERNAL_HEADERS.accountId]: caller.accountId,
    [INTERNAL_HEADERS.environment]: caller.environment,
    ...(caller.keyId !== undefined && { [INTERNAL_HEADERS.keyId]: caller.keyId }),
    // The request's own id, so one id follows the call through both services' logs.
    [INTERNAL_HEADERS.requestId]: currentRequestId() ?? newId('request'),
  });
  const fetchOptions = () => ({ signal: AbortSignal.timeout(options.timeoutMs) });

  // A catalogue we cannot reach is our own outage: a plain error, which the error handler logs
  // and answers as internal_error.
  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new Error('catalogue could not be reached', { cause: error });
    }
  }

  return {
    getBundle: (caller, name) =>
      guarded(async () => {
        const res = await bundles.getBundle({ params: { name }, headers: headersFor(caller), fetchOptions: fetchOptions() });
        if (res.status === 200) return res.body;
        return rethrow(res.status, res.body);
      }),
    orderProfiles: (caller, body) =>
      guarded(async () => {
        const res = await supply.orderProfiles({ body, headers: headersFor(caller), fetchOptions: fetchOptions() });
        if (res.status === 200) return res.body.profiles;
        return rethrow(res.status, res.body);
      }),
    profileAction: (caller, iccid, action) =>
      guarded(async () => {
        const call = { suspend: supply.suspendProfile, resume: supply.resumeProfile, terminate: supply.terminateProfile }[action];
        const res = await call({ params: { iccid }, body: {}, headers: headersFor(caller), fetchOptions: fetchOptions() });
        if (res.status !== 200) rethrow(res.status, res.body);
      }),
  };
}
