import {
  ApiError,
  internalContract,
  internalSupplyCallbacksContract,
  internalSupplyContract,
  type InternalBundle,
  type ProfileReport,
  type PurchaseOutcome,
  type Termination,
  type VendorOrder,
  type SuppliedProfile,
} from '@connectivity/contracts';
import { createInternalClient, errorMessage, UpstreamFailure, type Caller, type Logger } from '@connectivity/platform';
import { createSandboxStock } from './sandbox-stock.ts';

/** What inventory may ask the supplier to do to a live profile; `terminate` ends it for good. */
export type ProfileAction = 'suspend' | 'resume' | 'terminate';

export interface CatalogueClientOptions {
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
  logger: Logger;
}

/** What inventory asks of catalogue: bundles for orders, profiles (live, and a stock of sandbox ones), and live supply. */
export interface CatalogueClient {
  getBundle(caller: Caller, name: string): Promise<InternalBundle>;
  /** Sandbox profiles (from the stock); a live order goes through `purchase`. */
  orderProfiles(caller: Caller, input: { reference: string; bundle: string; quantity: number }): Promise<SuppliedProfile[]>;
  /**
   * A live purchase, once (record 0159): bought, or in doubt (catalogue or the vendor may have made it:
   * ask `findOrder` before buying again). A rejection means nothing was bought.
   */
  purchase(caller: Caller, input: { reference: string; bundle: string; quantity: number; price_cents: number }): Promise<PurchaseOutcome>;
  profileAction(caller: Caller, iccid: string, action: Exclude<ProfileAction, 'terminate'>): Promise<void>;
  /** Ends a live profile at the supplier; says what became of its money (record 0158). */
  terminate(caller: Caller, iccid: string): Promise<Termination>;
  /** Whether the vendor has refunded a terminated profile whose refund it reviews. */
  refundStatus(caller: Caller, iccid: string, vendorRefundId: string | null): Promise<'pending' | 'succeeded'>;
  /** The live supplier's orders placed in a window (Unix seconds), a page at a time (record 0161). */
  vendorOrders(window: { since: number; until: number; page: number }): Promise<{ orders: VendorOrder[]; next_page: number | null }>;
  /** The profiles the supplier made for an order placed with `reference`; null when it made none. */
  /** `placed`: when, what and how many, for a vendor whose orders may lack the reference (record 0132). */
  findOrder(caller: Caller, reference: string, placed?: { since: number; bundle: string; quantity: number }): Promise<SuppliedProfile[] | null>;
  /** What the supplier says of a live profile now; null when it knows no such profile. */
  profileReport(caller: Caller, iccid: string): Promise<ProfileReport | null>;
}

/** A 404 from catalogue: the supplier knows no such thing. */
const orNull = async <T>(call: Promise<T>): Promise<T | null> => {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_not_found') return null;
    throw error;
  }
};

const ACTIONS = {
  suspend: internalSupplyContract.suspendProfile,
  resume: internalSupplyContract.resumeProfile,
} as const;

/** How long catalogue's purchase may still be running at the vendor when its own answer was lost (record 0159). */
export const CATALOGUE_PURCHASE_IN_DOUBT_SECONDS = 600;

/**
 * catalogue's internal contract through the platform's internal client: path parameters are
 * validated and encoded by it, catalogue's refusals come back as the same ApiError. A catalogue
 * we cannot reach is our own outage: a plain error, which the error handler logs and answers as
 * internal_error.
 */
export function createCatalogueClient(options: CatalogueClientOptions): CatalogueClient {
  const client = createInternalClient({ service: 'catalogue', ...options });
  // Sandbox bundles change only by catalogue's migrations, so an order need not ask for one it
  // asked for a minute ago; live ones are asked every time (prices, the operator's switch).
  const sandbox = new Map<string, { bundle: Promise<InternalBundle>; at: number }>();
  const SANDBOX_BUNDLE_TTL_MS = 60_000;
  const sandboxBundle = (caller: Caller, name: string): Promise<InternalBundle> => {
    const cached = sandbox.get(name);
    if (cached && Date.now() - cached.at < SANDBOX_BUNDLE_TTL_MS) return cached.bundle;
    const bundle = guarded(() => client.call(internalContract.catalogue.getBundle, { params: { name }, caller }));
    sandbox.set(name, { bundle, at: Date.now() });
    // A refusal (unknown name, catalogue down) is not remembered.
    bundle.catch(() => sandbox.delete(name));
    return bundle;
  };

  // Sandbox profiles come from a stock topped up a block at a time (see `createSandboxStock`).
  const SANDBOX_STOCK_BLOCK = 50;
  const sandboxStock = createSandboxStock({
    block: SANDBOX_STOCK_BLOCK,
    fetch: (caller, bundle, count) =>
      guarded(async () => (await client.call(internalSupplyContract.stockSandboxProfiles, { body: { bundle, count }, caller })).profiles),
    onTopUpFailed: (error) => options.logger.warn({ err: errorMessage(error) }, 'sandbox profile stock not topped up; the next order asks again'),
  });

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
      throw error;
    }
  }

  return {
    getBundle: (caller, name) =>
      caller.environment === 'test'
        ? sandboxBundle(caller, name)
        : guarded(() => client.call(internalContract.catalogue.getBundle, { params: { name }, caller })),
    orderProfiles: (caller, body) => {
      if (caller.environment !== 'test') throw new TypeError('live profiles are bought with purchase()');
      return sandboxStock.take(caller, body.bundle, body.quantity);
    },
    purchase: async (caller, body) => {
      try {
        return await client.call(internalSupplyContract.orderProfiles, { body, caller });
      } catch (error) {
        // Sent, and no answer came back (a timeout, a reset) or catalogue failed midway: it may have
        // bought. Never sent: nothing was bought, and that is our own outage.
        if ((error instanceof UpstreamFailure && !error.notSent) || (error instanceof ApiError && error.code === 'internal_error')) {
          options.logger.warn({ reference: body.reference, err: errorMessage(error) }, 'live purchase call ended without an answer; the purchase is in doubt');
          return { outcome: 'in_doubt', retry_after_seconds: 5, settles_within_seconds: CATALOGUE_PURCHASE_IN_DOUBT_SECONDS, vendor_request_id: null };
        }
        if (error instanceof UpstreamFailure) throw new Error('catalogue could not be reached', { cause: error });
        throw error;
      }
    },
    profileAction: (caller, iccid, action) =>
      guarded(async () => {
        await client.call(ACTIONS[action], { params: { iccid }, body: {}, caller });
      }),
    terminate: (caller, iccid) => guarded(() => client.call(internalSupplyContract.terminateProfile, { params: { iccid }, body: {}, caller })),
    refundStatus: (caller, iccid, vendorRefundId) =>
      guarded(
        async () =>
          (
            await client.call(internalSupplyContract.refundStatus, {
              params: { iccid },
              query: vendorRefundId === null ? {} : { vendor_refund_id: vendorRefundId },
              caller,
            })
          ).status,
      ),
    vendorOrders: (window) => guarded(() => client.call(internalSupplyCallbacksContract.listVendorOrders, { query: window })),
    findOrder: (caller, reference, placed) =>
      guarded(
        async () => (await orNull(client.call(internalSupplyContract.findOrder, { params: { reference }, query: placed ?? {}, caller })))?.profiles ?? null,
      ),
    profileReport: (caller, iccid) => guarded(() => orNull(client.call(internalSupplyContract.profileReport, { params: { iccid }, caller }))),
  };
}
