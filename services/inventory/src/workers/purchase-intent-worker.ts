import { errorMessage, hasPrefix, startPoller, type Caller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import type { TopupClient } from '../clients/topup-client.ts';
import { claimAbandonedIntents, placedOf, type DueIntent } from '../db/purchase-intent-repository.ts';
import { returnHold } from '../db/purchase-settlement.ts';
import { recordAbandonedTopup } from '../use-cases/record-abandoned-topup.ts';
import { releasePurchase } from '../use-cases/release-purchase.ts';

export interface PurchaseIntentWorkerOptions {
  knex: Knex;
  catalogue: CatalogueClient;
  /** Asked about a live top-up's intent (record 0247); without it such intents are left to their requests' retries. */
  topups?: TopupClient;
  logger: Logger;
  intervalMs: number;
  /** How long a claimed intent is left to this worker before another may take it. */
  leaseMs: number;
  batchSize?: number;
  now?: () => number;
}

export interface PurchaseIntentWorker {
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Live purchases left behind (records 0152, 0159): an intent still pending past its check time
 * belongs to an order whose attempt died or failed between asking the supplier and committing, or
 * whose purchase was in doubt, and was not retried. The supplier is asked what it did under that
 * reference: profiles it made are handed to the supplier-release work (terminated, or refunded where
 * the vendor refunds) and the hold is given back, in the transaction that settles the intent under
 * its lock (so a late retry that records them wins or loses cleanly); nothing made and the vendor's
 * window past, the intent is void and its hold given back.
 */
export function startPurchaseIntentWorker(options: PurchaseIntentWorkerOptions): PurchaseIntentWorker {
  const now = options.now ?? (() => Date.now());
  const batchSize = options.batchSize ?? 20;

  /**
   * A live top-up's intent (record 0247): it made no order of profiles, so its bundle is looked for on the
   * profile. Not there once the vendor's window is past: void, the hold given back. There: the top-up was
   * bought and not recorded, and is recorded now from the offer its intent kept (record 0259).
   */
  async function settleTopup(intent: DueIntent, caller: Caller): Promise<void> {
    if (intent.in_doubt_until !== null && now() < intent.in_doubt_until) return;
    if (!options.topups || intent.iccid === null) return;
    const found = await options.topups.find(caller, intent.order_id, { iccid: intent.iccid, bundle: intent.bundle, since: intent.created_at });
    if (!found) {
      await options.knex.transaction((trx) => returnHold(trx, intent.order_id, 'void', new Date(now()), 'Nothing was bought'));
      return;
    }
    await recordAbandonedTopup({ knex: options.knex, logger: options.logger }, intent, new Date(now()));
  }

  async function settle(intent: DueIntent): Promise<void> {
    const caller: Caller = { accountId: intent.account_id, environment: 'live' };
    // Never asked as an order: a top-up's bundle on an eSIM of ours is no order to release (record 0247).
    if (hasPrefix(intent.order_id, 'topup')) return settleTopup(intent, caller);
    const profiles = await options.catalogue.findOrder(caller, intent.order_id, placedOf(intent));
    if (profiles === null || profiles.length === 0) {
      // Still within the vendor's window: its order may yet appear; asked again after it.
      if (intent.in_doubt_until !== null && now() < intent.in_doubt_until) return;
      await options.knex.transaction((trx) => returnHold(trx, intent.order_id, 'void', new Date(now()), 'Nothing was bought'));
      return;
    }
    await releasePurchase(
      options.knex,
      { accountId: intent.account_id, orderId: intent.order_id, iccids: profiles.map((p) => p.iccid), reason: 'order_not_recorded' },
      now(),
    );
    options.logger.warn({ orderId: intent.order_id, profiles: profiles.length }, 'a live purchase was never recorded; its profiles will be released');
  }

  const poller = startPoller({
    name: 'purchase intents',
    intervalMs: options.intervalMs,
    logger: options.logger,
    async pass() {
      const due = await claimAbandonedIntents(options.knex, now(), options.leaseMs, batchSize);
      for (const intent of due) {
        try {
          await settle(intent);
        } catch (error) {
          // Asked again when the lease runs out.
          options.logger.warn({ orderId: intent.order_id, err: errorMessage(error) }, 'settling an abandoned live purchase failed; will retry');
        }
      }
      return { done: due.length, more: due.length === batchSize };
    },
  });
  return { runOnce: () => poller.runOnce(), stop: () => poller.stop() };
}
