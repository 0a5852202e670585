import { internalCatalogueTopupsContract, type InternalBundle } from '@connectivity/contracts';
import { createInternalClient, UpstreamFailure, type Caller, type Logger } from '@connectivity/platform';

/** What inventory asks of catalogue for top-ups (records 0240-0244). */
export interface TopupClient {
  /** The bundles that can be added to the profile `iccid`, bought with `bundle`, by name. */
  offers(caller: Caller, input: { bundle: string; iccid: string }): Promise<InternalBundle[]>;
}

export interface TopupClientOptions {
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
  logger: Logger;
}

/** catalogue's top-up routes through the platform's internal client; an unreachable catalogue is our own outage (a plain error). */
export function createTopupClient(options: TopupClientOptions): TopupClient {
  const client = createInternalClient({ service: 'catalogue', ...options });
  return {
    offers: async (caller, query) => {
      try {
        return (await client.call(internalCatalogueTopupsContract.listTopupOffers, { query, caller })).offers;
      } catch (error) {
        if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
        throw error;
      }
    },
  };
}
