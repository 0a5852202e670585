import { internalContract, internalSupplyContract, type InternalBundle, type SuppliedProfile } from '@connectivity/contracts';
import { createInternalClient, UpstreamFailure } from '@connectivity/platform';
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

const ACTIONS = {
  suspend: internalSupplyContract.suspendProfile,
  resume: internalSupplyContract.resumeProfile,
  terminate: internalSupplyContract.terminateProfile,
} as const;

/**
 * catalogue's internal contract through the platform's internal client: path parameters are
 * validated and encoded by it, catalogue's refusals come back as the same ApiError. A catalogue
 * we cannot reach is our own outage: a plain error, which the error handler logs and answers as
 * internal_error.
 */
export function createCatalogueClient(options: CatalogueClientOptions): CatalogueClient {
  const client = createInternalClient({ service: 'catalogue', ...options });

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
      throw error;
    }
  }

  return {
    getBundle: (caller, name) => guarded(() => client.call(internalContract.catalogue.getBundle, { params: { name }, identity: caller })),
    orderProfiles: (caller, body) =>
      guarded(async () => (await client.call(internalSupplyContract.orderProfiles, { body, identity: caller })).profiles),
    profileAction: (caller, iccid, action) =>
      guarded(async () => {
        await client.call(ACTIONS[action], { params: { iccid }, body: {}, identity: caller });
      }),
  };
}
