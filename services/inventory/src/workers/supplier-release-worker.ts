import { isApiError } from '@connectivity/contracts';
import { errorMessage, startPoller, type Caller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { recordedIccids } from '../db/esim-repository.ts';
import { claimDueReleases, finishRelease, RELEASES_SIGNAL, retryReleaseLater, type DueRelease } from '../db/release-repository.ts';
import { releaseRetryDelayMs } from '../domain/release-backoff.ts';

export interface SupplierReleaseWorkerOptions {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  intervalMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  batchSize?: number;
  now?: () => number;
}

export interface SupplierReleaseWorker {
  /** Works through every release due now; resolves with how many were finished. */
  runOnce(): Promise<number>;
  /** Runs now instead of at the next interval (recording a release signals it too). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Releases at the supplier the profiles of live orders whose transaction failed (see
 * `use-cases/place-order.ts`): each profile is terminated, outside any transaction, until the supplier
 * confirms. A supplier that is down is retried with backoff for as long as it takes; one that
 * says it cannot terminate a profile is not asked again, and the row is kept, abandoned, with
 * the reason for the operator.
 */
export function startSupplierReleaseWorker(options: SupplierReleaseWorkerOptions): SupplierReleaseWorker {
  const now = options.now ?? (() => Date.now());
  const batchSize = options.batchSize ?? 20;
  // A claim outlives the calls it covers (each bounded by the catalogue client's timeout).
  const leaseMs = Math.max(options.retryBaseMs, 60_000);

  async function release(item: DueRelease): Promise<void> {
    const caller: Caller = { accountId: item.account_id, environment: 'live' };
    // A profile an eSIM of ours holds is in use (the supplier handed out a duplicate): never end it.
    const recorded = await recordedIccids(options.knex, item.iccids);
    try {
      for (const iccid of item.iccids) {
        if (!recorded.has(iccid)) await options.catalogue.terminate(caller, iccid);
      }
    } catch (error) {
      const message = errorMessage(error);
      if (isApiError(error) && error.code === 'capability_not_orderable') {
        await finishRelease(options.knex, item.order_reference, 'abandoned', now(), message);
        options.logger.error({ orderId: item.order_reference, err: message }, 'the supplier cannot release the profiles of an unrecorded order');
        return;
      }
      const delay = releaseRetryDelayMs(item.attempts, options.retryBaseMs, options.retryMaxMs);
      await retryReleaseLater(options.knex, item.order_reference, now() + delay, message);
      options.logger.warn(
        { orderId: item.order_reference, attempts: item.attempts, retryInMs: delay, err: message },
        'releasing supplier profiles failed; will retry',
      );
      return;
    }
    await finishRelease(options.knex, item.order_reference, 'released', now());
    options.logger.info({ orderId: item.order_reference, profiles: item.iccids.length }, 'released the supplier profiles of an unrecorded order');
  }

  const poller = startPoller({
    name: 'supplier releases',
    intervalMs: options.intervalMs,
    wakeOn: [RELEASES_SIGNAL],
    logger: options.logger,
    async pass() {
      const due = await claimDueReleases(options.knex, now(), leaseMs, batchSize);
      for (const item of due) await release(item);
      return { done: due.length, more: due.length === batchSize };
    },
  });

  return {
    runOnce: () => poller.runOnce(),
    wake: () => poller.wake(),
    stop: () => poller.stop(),
  };
}
