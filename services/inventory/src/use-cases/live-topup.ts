import { ApiError, type InternalBundle } from '@connectivity/contracts';
import { newId, type Caller, type IdempotencyClaim } from '@connectivity/platform';
import type { TopupClient } from '../clients/topup-client.ts';
import type { PurchaseIntent } from '../db/purchase-intent-repository.ts';
import { assertNotInDoubt, holdForPurchase, resumeIntent, sendToVendor, supplierUnavailable, type LivePurchaseDeps } from './live-purchase.ts';

export type LiveTopupDeps = Pick<LivePurchaseDeps, 'knex' | 'logger' | 'now' | 'intentCheckAfterMs' | 'maxInFlight' | 'inDoubtMs'> & { topups: TopupClient };

/**
 * The purchase of a live top-up, bought once whatever the vendor's speed (records 0245, 0246): the order's
 * machinery (records 0157, 0159) with the top-up's id as the intent's reference and a `topup` hold.
 * - The first attempt holds the price and writes the intent (with the profile's ICCID) in one transaction
 *   under the balance's lock, before the vendor is asked; 402 there means nothing was bought.
 * - The intent is marked in doubt before the call; a call that may have reached the vendor keeps it so.
 * - A retry with the same Idempotency-Key asks the vendor whether the top-up is on the profile first; in
 *   doubt and not there, it answers 503 `supplier_unavailable` with `Retry-After`, never a second purchase.
 * - A refusal or a vendor that is down gives the hold back (`topup_release`) and answers the error.
 * Resolves with the top-up's id once bought; the caller records it and keeps the hold.
 */
export async function liveTopupPurchase(
  deps: LiveTopupDeps,
  caller: Caller,
  input: { iccid: string; bundle: string; price_cents: number; offer: InternalBundle },
  claim: IdempotencyClaim,
): Promise<string> {
  const nowMs = () => deps.now().getTime();
  const request = claim.request;
  const earlier = await resumeIntent(deps, request);
  let intent: PurchaseIntent;
  if (earlier) {
    intent = earlier;
    if (await foundAtVendor(deps, caller, intent, input)) {
      deps.logger.info({ topupId: intent.order_id }, 'a retried live top-up found its bundle on the profile; nothing is bought again');
      return intent.order_id;
    }
    assertNotInDoubt(intent, 'top-up', nowMs());
  } else {
    intent = await holdForPurchase(
      deps,
      caller,
      {
        reference: newId('topup'),
        type: 'topup',
        bundle: input.bundle,
        quantity: 1,
        total_cents: input.price_cents,
        iccid: input.iccid,
        topupOffer: input.offer,
      },
      request,
    );
  }
  await buy(deps, caller, intent, input);
  return intent.order_id;
}

/** One purchase call for the intent (`sendToVendor`: marked in doubt before it is sent; refused or never made, the hold is given back). */
async function buy(deps: LiveTopupDeps, caller: Caller, intent: PurchaseIntent, input: { iccid: string; bundle: string; price_cents: number }): Promise<void> {
  const topupId = intent.order_id;
  const outcome = await sendToVendor(deps, intent, 'top-up', () =>
    deps.topups.purchase(caller, { reference: topupId, iccid: input.iccid, bundle: input.bundle, price_cents: input.price_cents }),
  );
  // The vendor's price was checked against the charge before buying (record 0160); a rise between that
  // quote and the order cannot be undone on a bundle already on the profile, so it is logged (record 0246).
  if (outcome.retail_price_cents !== null && outcome.retail_price_cents > input.price_cents) {
    deps.logger.warn({ topupId, charged: input.price_cents, now: outcome.retail_price_cents }, 'the supplier charged more for a top-up than it was priced');
  }
}

/** Whether the intent's top-up is on the profile at the vendor; 503 when the vendor cannot be asked. */
async function foundAtVendor(deps: LiveTopupDeps, caller: Caller, intent: PurchaseIntent, input: { iccid: string; bundle: string }): Promise<boolean> {
  try {
    return await deps.topups.find(caller, intent.order_id, { iccid: intent.iccid ?? input.iccid, bundle: intent.bundle, since: intent.created_at });
  } catch (error) {
    if (error instanceof ApiError) {
      throw supplierUnavailable('The supplier cannot be asked about this top-up right now; nothing more was bought. Retry with the same Idempotency-Key.', 5);
    }
    throw error;
  }
}
