import { errorMessage, startPoller, type Caller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { claimAbandonedIntents, placedOf, settleIntent, type DueIntent } from '../db/purchase-intent-repository.ts';
import { releasePurchase } from '../use-cases/release-purchase.ts';

export interface PurchaseIntentWorkerOptions {
  knex: Knex;
  catalogue: CatalogueClient;
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
 * Live purchases left behind (record 0152): an intent still pending past its check time belongs
 * to an order whose attempt died or failed between asking the supplier and committing, and was
 * not retried. The supplier is asked what it did under that reference: profiles it made are handed
 * to the supplier-release work (terminated, or refunded where the vendor refunds), in the
 * transaction that settles the intent under its lock (so a late retry that records them wins or
 * loses cleanly); nothing made, the intent is void.
 */
export function startPurchaseIntentWorker(options: PurchaseIntentWorkerOptions): PurchaseIntentWorker {
  const now = options.now ?? (() => Date.now());
  const batchSize = options.batchSize ?? 20;

  async function settle(intent: DueIntent): Promise<void> {
    const caller: Caller = { accountId: intent.account_id, environment: 'live' };
    const profiles = await options.catalogue.findOrder(caller, intent.order_id, placedOf(intent));
    if (profiles === null || profiles.length === 0) {
      await settleIntent(options.knex, intent.order_id, 'void', now());
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
