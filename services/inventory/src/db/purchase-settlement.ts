import { hasPrefix } from '@connectivity/platform';
import type { Knex } from 'knex';
import { lockBalance, postMovement, settleHeld } from './ledger-repository.ts';
import { lockIntent, settleIntent, type IntentState, type PurchaseIntent } from './purchase-intent-repository.ts';

/**
 * The end of a live purchase's hold (record 0157), in the caller's transaction and under the intent's
 * row lock, so the request that records the purchase and a worker that gives it up never both win.
 */

/**
 * The purchase is recorded: the intent is settled and its hold kept (the `order` transaction stands;
 * only `pending_cents` goes down). Undefined when the intent is no longer pending (given up meanwhile).
 */
export async function keepHold(trx: Knex.Transaction, orderId: string, at: Date): Promise<PurchaseIntent | undefined> {
  const intent = await lockIntent(trx, orderId);
  if (intent?.state !== 'pending') return undefined;
  await settleIntent(trx, orderId, 'recorded', at.getTime());
  if (intent.hold_cents > 0) {
    const balance = await lockBalance(trx, intent.account_id, intent.environment, { create: true, now: Math.floor(at.getTime() / 1000) });
    if (balance) await settleHeld(trx, balance, intent.hold_cents, at);
  }
  return intent;
}

/**
 * The purchase will never be recorded (refused, released, or nothing was bought): the intent is
 * settled as `state` and its hold given back (`order_release`, or `topup_release`). False when it was no longer pending.
 */
export async function returnHold(
  trx: Knex.Transaction,
  orderId: string,
  state: Exclude<IntentState, 'pending' | 'recorded'>,
  at: Date,
  reason: string,
): Promise<boolean> {
  const intent = await lockIntent(trx, orderId);
  if (intent?.state !== 'pending') return false;
  await settleIntent(trx, orderId, state, at.getTime());
  if (intent.hold_cents > 0) {
    const balance = await lockBalance(trx, intent.account_id, intent.environment, { create: true, now: Math.floor(at.getTime() / 1000) });
    if (balance) {
      await postMovement(
        trx,
        balance,
        // A top-up's intent carries the top-up's id (record 0245): its hold comes back as a `topup_release`.
        {
          type: hasPrefix(orderId, 'topup') ? 'topup_release' : 'order_release',
          amount_cents: intent.hold_cents,
          pending_delta: -intent.hold_cents,
          source: orderId,
          description: reason,
        },
        at,
      );
    }
  }
  return true;
}
