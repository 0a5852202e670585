import { errorMessage, startPoller, type Caller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { finishRefund } from '../db/refund-ledger.ts';
import { claimDueRefunds, findRefund } from '../db/refund-repository.ts';
import type { RefundRecord } from '../domain/refund.ts';

export interface RefundWorkerOptions {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  intervalMs: number;
  /** How long after a look at the vendor the next one comes. */
  checkEveryMs: number;
  batchSize?: number;
  now?: () => number;
}

/**
 * Refunds the vendor reviews by hand (Airalo, record 0158): each pending refund is looked at, every
 * `checkEveryMs`, at the vendor; once the vendor shows it refunded us, the refund succeeds and the
 * balance is credited, in one transaction under the refund's row lock (so the operator settling it at
 * the same time wins or loses cleanly). A rejection has no API at the vendor: the operator records it.
 */
export function startRefundWorker(options: RefundWorkerOptions) {
  const now = options.now ?? (() => Date.now());
  const batchSize = options.batchSize ?? 20;

  async function look(refund: RefundRecord): Promise<void> {
    const caller: Caller = { accountId: refund.account_id, environment: refund.environment };
    const status = await options.catalogue.refundStatus(caller, refund.iccid, refund.vendor_refund_id);
    if (status !== 'succeeded') return;
    const finished = await options.knex.transaction(async (trx) => {
      const locked = await findRefund(trx, refund.id, { lock: true });
      if (locked?.status !== 'pending') return false;
      await finishRefund(trx, locked, 'succeeded', null, new Date(now()));
      return true;
    });
    if (finished) {
      options.logger.info({ refundId: refund.id, esimId: refund.esim_id }, 'the supplier refunded a cancelled eSIM; the balance is credited');
    }
  }

  const poller = startPoller({
    name: 'refunds',
    intervalMs: options.intervalMs,
    logger: options.logger,
    async pass() {
      const due = await claimDueRefunds(options.knex, now(), options.checkEveryMs, batchSize);
      for (const refund of due) {
        try {
          await look(refund);
        } catch (error) {
          // Looked at again when its lease runs out.
          options.logger.warn({ refundId: refund.id, err: errorMessage(error) }, 'asking the supplier about a refund failed; will retry');
        }
      }
      return { done: due.length, more: due.length === batchSize };
    },
  });
  return { runOnce: () => poller.runOnce(), stop: () => poller.stop() };
}
