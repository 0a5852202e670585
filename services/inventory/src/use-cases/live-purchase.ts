import { ApiError, type InternalBundle, type SuppliedProfile } from '@connectivity/contracts';
import { newId, type Caller, type IdempotencyClaim, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { findAccount } from '../db/account-repository.ts';
import { lockBalance, postMovement } from '../db/ledger-repository.ts';
import {
  countInFlight,
  deferIntentCheck,
  findPendingIntent,
  insertIntent,
  markInDoubt,
  placedOf,
  type PurchaseIntent,
} from '../db/purchase-intent-repository.ts';
import { returnHold } from '../db/purchase-settlement.ts';
import { assertCanPay } from '../domain/balance.ts';
import { assertVerified } from '../domain/order.ts';
import { releasePurchase } from './release-purchase.ts';

export interface LivePurchaseDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  now: () => Date;
  /** How long a pending intent is left to its request and retries before the worker settles it (record 0152). */
  intentCheckAfterMs: number;
  /** Live purchases in flight per account at most (record 0162). */
  maxInFlight: number;
  /** How long a purchase call that may have reached the vendor keeps the order in doubt when nothing better is known (record 0159). */
  inDoubtMs: number;
}

/** The default of `intentCheckAfterMs`: well past the idempotency lease and the catalogue's timeout. */
export const INTENT_CHECK_AFTER_MS = 10 * 60_000;
export const MAX_LIVE_IN_FLIGHT = 10;
export const PURCHASE_IN_DOUBT_MS = 10 * 60_000;

/** How a use case's settings (records 0152, 0159, 0162) become a purchase's, the defaults filled in. */
export function purchaseSettings(
  settings: Partial<Record<'intentCheckAfterMs' | 'maxLiveInFlight' | 'purchaseInDoubtMs', number | undefined>> & { now?: (() => Date) | undefined },
) {
  return {
    now: settings.now ?? (() => new Date()),
    intentCheckAfterMs: settings.intentCheckAfterMs ?? INTENT_CHECK_AFTER_MS,
    maxInFlight: settings.maxLiveInFlight ?? MAX_LIVE_IN_FLIGHT,
    inDoubtMs: settings.purchaseInDoubtMs ?? PURCHASE_IN_DOUBT_MS,
  };
}

export interface LiveOrderInput {
  bundle: string;
  quantity: number;
  price_cents: number;
  total_cents: number;
}

/** How long after an in-doubt window the worker looks at an intent nobody retried. */
export const AFTER_DOUBT_MS = 30_000;

/** 503 `supplier_unavailable` with the wait in `Retry-After` (record 0258). */
export function supplierUnavailable(message: string, retryAfterSeconds: number): ApiError {
  return new ApiError('supplier_unavailable', { message, retryAfter: String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

/** A retry while the vendor has not said whether it made the purchase: 503, never a second purchase (record 0159). */
export function assertNotInDoubt(intent: { in_doubt_until: number | null }, what: 'order' | 'top-up', nowMs: number): void {
  if (intent.in_doubt_until !== null && nowMs < intent.in_doubt_until) {
    throw supplierUnavailable(
      `The supplier has not said yet whether it made this ${what}; nothing more was bought. Retry with the same Idempotency-Key.`,
      Math.min(5, (intent.in_doubt_until - nowMs) / 1000),
    );
  }
}

/**
 * The live purchase of a request, bought once whatever the vendor's speed, a crash or a retry
 * (records 0152, 0157, 0159):
 * - the request's first attempt takes the hold and writes the intent (our order id, the vendor's
 *   reference) in ONE transaction under the balance's row lock, before any vendor call: concurrent
 *   orders never hold more than the balance, and a refused one costs the vendor nothing;
 * - before the purchase call is sent the intent is marked in doubt (the call may reach the vendor
 *   and this process die): until the vendor's answer is known (its order found, or its worst case
 *   past with nothing found) no second purchase is made for the order; a retry meanwhile is 503
 *   `supplier_unavailable` with `Retry-After`;
 * - a retry of the same request (Idempotency-Key) asks the vendor what it made under the reference
 *   first, and records that.
 * Resolves with the order id and its profiles; the caller records them (keeping the hold).
 */
export async function livePurchase(
  deps: LivePurchaseDeps,
  caller: Caller,
  input: LiveOrderInput,
  claim: IdempotencyClaim,
): Promise<{ orderId: string; profiles: SuppliedProfile[] }> {
  const nowMs = () => deps.now().getTime();
  const request = claim.request;
  const earlier = await resumeIntent(deps, request);
  let intent: PurchaseIntent;
  if (earlier) {
    intent = earlier;
    const bought = await findPurchase(deps, caller, intent);
    if (bought !== null && bought.length > 0) {
      deps.logger.info(
        { orderId: intent.order_id, profiles: bought.length },
        'a retried live order found what the supplier made for it; nothing is bought again',
      );
      return { orderId: intent.order_id, profiles: await checkedProfiles(deps, caller, intent.order_id, bought, intent.quantity) };
    }
    assertNotInDoubt(intent, 'order', nowMs());
  } else {
    intent = await holdForPurchase(
      deps,
      caller,
      { reference: newId('order'), type: 'order', bundle: input.bundle, quantity: input.quantity, total_cents: input.total_cents },
      request,
    );
  }
  return { orderId: intent.order_id, profiles: await buy(deps, caller, intent, input) };
}

/** The pending intent an earlier attempt of this request left, its worker check pushed past this attempt and the vendor's window. */
export async function resumeIntent(deps: Pick<LivePurchaseDeps, 'knex' | 'now' | 'intentCheckAfterMs'>, request: IdempotencyClaim['request']) {
  const earlier = request ? await findPendingIntent(deps.knex, request) : undefined;
  if (earlier) {
    await deferIntentCheck(
      deps.knex,
      earlier.order_id,
      Math.max(deps.now().getTime() + deps.intentCheckAfterMs, (earlier.in_doubt_until ?? 0) + AFTER_DOUBT_MS),
    );
  }
  return earlier;
}

/** What a hold is for: our order's or top-up's id (the intent's reference), and the balance transaction's type. */
export interface HoldInput {
  reference: string;
  type: 'order' | 'topup';
  bundle: string;
  quantity: number;
  total_cents: number;
  /** The profile a top-up tops up (record 0247). */
  iccid?: string;
  /** The offer a top-up buys, kept on its intent (record 0259). */
  topupOffer?: InternalBundle;
}

/**
 * The first attempt's hold and intent, in one transaction: the account verified, the balance able to
 * pay (402 otherwise), fewer purchases in flight than the cap (429 otherwise), then the intent and the
 * `order` (or `topup`, record 0245) transaction that holds the total.
 */
export async function holdForPurchase(
  deps: Pick<LivePurchaseDeps, 'knex' | 'now' | 'intentCheckAfterMs' | 'maxInFlight'>,
  caller: Caller,
  input: HoldInput,
  request: IdempotencyClaim['request'],
): Promise<PurchaseIntent> {
  const at = deps.now();
  const orderId = input.reference;
  return deps.knex.transaction(async (trx) => {
    assertVerified(await findAccount(trx, caller.accountId));
    const balance = await lockBalance(trx, caller.accountId, 'live', { create: true, now: Math.floor(at.getTime() / 1000) });
    if (!balance) throw new Error('a live balance could not be made');
    assertCanPay(balance.available_cents, input.total_cents, 'live');
    const inFlight = await countInFlight(trx, caller.accountId);
    if (inFlight >= deps.maxInFlight) {
      throw new ApiError('rate_limited', {
        message: `${inFlight} live orders of this account are still in progress (at most ${deps.maxInFlight} at once); retry when one has ended.`,
        retryAfter: '1',
      });
    }
    const intent = await insertIntent(
      trx,
      {
        order_id: orderId,
        account_id: caller.accountId,
        environment: 'live',
        key_id: request?.keyId ?? null,
        idempotency_key: request?.idempotencyKey ?? null,
        bundle: input.bundle,
        quantity: input.quantity,
        hold_cents: input.total_cents,
        iccid: input.iccid ?? null,
        topup_offer: input.topupOffer ?? null,
      },
      at.getTime(),
      at.getTime() + deps.intentCheckAfterMs,
    );
    await postMovement(
      trx,
      balance,
      {
        type: input.type,
        amount_cents: -input.total_cents,
        pending_delta: input.total_cents,
        source: orderId,
        description: `${input.quantity} × ${input.bundle}`,
      },
      at,
    );
    return intent;
  });
}

/** A purchase in doubt, as catalogue answers it (record 0159). */
type InDoubtOutcome = { outcome: 'in_doubt'; retry_after_seconds: number; settles_within_seconds: number; vendor_request_id: string | null };
const isInDoubt = (outcome: { outcome: string }): outcome is InDoubtOutcome => outcome.outcome === 'in_doubt';

/**
 * The vendor call of a live purchase, an order's or a top-up's (records 0159, 0246): the intent marked in
 * doubt before it is sent; refused or never made, the hold given back (the intent void) and the error
 * rethrown, so a retry starts afresh; in doubt, the intent kept so for the vendor's window and 503 with
 * `Retry-After`. Resolves with what was bought.
 */
export async function sendToVendor<O extends { outcome: 'bought' } | InDoubtOutcome>(
  deps: Pick<LivePurchaseDeps, 'knex' | 'logger' | 'now' | 'intentCheckAfterMs' | 'inDoubtMs'>,
  intent: PurchaseIntent,
  what: 'order' | 'top-up',
  call: () => Promise<O>,
): Promise<Exclude<O, InDoubtOutcome>> {
  const reference = intent.order_id;
  const doubtUntil = deps.now().getTime() + deps.inDoubtMs;
  await markInDoubt(deps.knex, reference, doubtUntil, null, Math.max(intent.created_at + deps.intentCheckAfterMs, doubtUntil + AFTER_DOUBT_MS));
  let outcome: O;
  try {
    outcome = await call();
  } catch (error) {
    const reason = error instanceof ApiError ? error.code : 'catalogue unreachable';
    await deps.knex.transaction((trx) => returnHold(trx, reference, 'void', deps.now(), `Not bought (${reason})`));
    throw error;
  }
  if (isInDoubt(outcome)) {
    const doubt = outcome;
    const until = deps.now().getTime() + doubt.settles_within_seconds * 1000;
    await markInDoubt(deps.knex, reference, until, doubt.vendor_request_id, Math.max(intent.created_at + deps.intentCheckAfterMs, until + AFTER_DOUBT_MS));
    deps.logger.warn({ reference, vendorRequestId: doubt.vendor_request_id }, `live ${what} in doubt: the supplier has not answered yet`);
    throw supplierUnavailable(
      `The supplier has not confirmed this ${what} yet; nothing more will be bought for it. Retry with the same Idempotency-Key.`,
      doubt.retry_after_seconds,
    );
  }
  return outcome as Exclude<O, InDoubtOutcome>;
}

/**
 * One purchase call for the intent (`sendToVendor`); bought: the profiles (a vendor price above what
 * the order was charged releases them and refuses the order, record 0160).
 */
async function buy(deps: LivePurchaseDeps, caller: Caller, intent: PurchaseIntent, input: LiveOrderInput): Promise<SuppliedProfile[]> {
  const orderId = intent.order_id;
  const outcome = await sendToVendor(deps, intent, 'order', () =>
    deps.catalogue.purchase(caller, { reference: orderId, bundle: input.bundle, quantity: input.quantity, price_cents: input.price_cents }),
  );
  const profiles = await checkedProfiles(deps, caller, orderId, outcome.profiles, input.quantity);
  if (outcome.retail_price_cents !== null && outcome.retail_price_cents > input.price_cents) {
    await releasePurchase(
      deps.knex,
      { accountId: caller.accountId, orderId, iccids: outcome.profiles.map((p) => p.iccid), reason: 'pricing_unavailable' },
      deps.now().getTime(),
    );
    deps.logger.warn({ orderId, charged: input.price_cents, now: outcome.retail_price_cents }, 'the supplier charged more than the order was priced; released');
    throw new ApiError('pricing_unavailable', {
      message: 'The supplier’s price for this bundle has just changed; nothing was charged. List the bundles again and retry.',
      retryAfter: '5',
    });
  }
  return profiles;
}

/** What the supplier made under the intent's reference, asked before buying again; unknown: the order waits for a retry. */
async function findPurchase(deps: LivePurchaseDeps, caller: Caller, intent: PurchaseIntent): Promise<SuppliedProfile[] | null> {
  try {
    return await deps.catalogue.findOrder(caller, intent.order_id, placedOf(intent));
  } catch (error) {
    if (error instanceof ApiError) {
      throw supplierUnavailable('The supplier cannot be asked about this order right now; nothing more was bought. Retry with the same Idempotency-Key.', 5);
    }
    throw error;
  }
}

/** The profiles of the order, as many as ordered; a short delivery is released (hold given back) and refused. */
async function checkedProfiles(
  deps: LivePurchaseDeps,
  caller: Caller,
  orderId: string,
  profiles: SuppliedProfile[],
  quantity: number,
): Promise<SuppliedProfile[]> {
  if (profiles.length === quantity) return profiles;
  await releasePurchase(
    deps.knex,
    { accountId: caller.accountId, orderId, iccids: profiles.map((p) => p.iccid), reason: 'short_delivery' },
    deps.now().getTime(),
  );
  throw new ApiError('supplier_refused', { message: 'The supplier did not deliver the profiles ordered; nothing was charged.' });
}
