import { ApiError, internalCatalogueTopupsContract, type InternalBundle, type TopupPurchaseOutcome } from '@connectivity/contracts';
import { createInternalClient, errorMessage, UpstreamFailure, type Caller, type Logger } from '@connectivity/platform';
import { CATALOGUE_PURCHASE_IN_DOUBT_SECONDS } from './catalogue-client.ts';

/** What inventory asks of catalogue for top-ups (records 0240-0248). */
export interface TopupClient {
  /** The bundles that can be added to the profile `iccid`, bought with `bundle`, by name. */
  offers(caller: Caller, input: { bundle: string; iccid: string }): Promise<InternalBundle[]>;
  /** A live top-up, bought once (record 0245): bought, or in doubt (ask `find` before buying again). A rejection means nothing was bought. */
  purchase(caller: Caller, input: { reference: string; iccid: string; bundle: string; price_cents: number }): Promise<TopupPurchaseOutcome>;
  /** Whether the top-up placed under `reference` is on the profile at the vendor. */
  find(caller: Caller, reference: string, placed: { iccid: string; bundle: string; since: number }): Promise<boolean>;
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
    purchase: async (caller, body) => {
      try {
        return await client.call(internalCatalogueTopupsContract.purchaseTopup, { body, caller });
      } catch (error) {
        // Sent and no answer came back, or catalogue failed midway: it may have bought (as a live order, record 0159).
        if ((error instanceof UpstreamFailure && !error.notSent) || (error instanceof ApiError && error.code === 'internal_error')) {
          options.logger.warn({ reference: body.reference, err: errorMessage(error) }, 'live top-up call ended without an answer; the purchase is in doubt');
          return { outcome: 'in_doubt', retry_after_seconds: 5, settles_within_seconds: CATALOGUE_PURCHASE_IN_DOUBT_SECONDS, vendor_request_id: null };
        }
        if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
        throw error;
      }
    },
    find: async (caller, reference, query) => {
      try {
        return (await client.call(internalCatalogueTopupsContract.findTopup, { params: { reference }, query, caller })).found;
      } catch (error) {
        if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
        throw error;
      }
    },
  };
}
