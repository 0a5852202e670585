import { signalAfterCommit } from '@connectivity/platform';
import type { Knex } from 'knex';
import { lockIntent } from '../db/purchase-intent-repository.ts';
import { returnHold } from '../db/purchase-settlement.ts';
import { insertRelease, RELEASES_SIGNAL } from '../db/release-repository.ts';

export interface PurchaseToRelease {
  accountId: string;
  orderId: string;
  iccids: string[];
  /** Why it was not recorded (an error code, or the database error). */
  reason: string;
}

/**
 * Hands the profiles of a live purchase we will not record to the supplier-release work, settles its
 * intent as released and gives its hold back, in one transaction under the intent's row lock. If the
 * intent is no longer pending (a retry of the same request recorded the order meanwhile), nothing is
 * released: resolves false. A purchase without an intent (an orphan order found at the vendor, record
 * 0161) is released as it is.
 */
export async function releasePurchase(knex: Knex, purchase: PurchaseToRelease, nowMs: number): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const intent = await lockIntent(trx, purchase.orderId);
    if (intent && intent.state !== 'pending') return false;
    await insertRelease(trx, { order_reference: purchase.orderId, account_id: purchase.accountId, iccids: purchase.iccids, reason: purchase.reason }, nowMs);
    if (intent) await returnHold(trx, purchase.orderId, 'released', new Date(nowMs), `Order not recorded (${purchase.reason}); its profiles are released`);
    signalAfterCommit(trx, RELEASES_SIGNAL);
    return true;
  });
}
