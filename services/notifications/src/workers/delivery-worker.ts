import { randomUUID } from 'node:crypto';
import { inBackgroundSpan, linksTo, startPoller } from '@connectivity/platform';
import { claimDue, DELIVERIES_SIGNAL } from '../db/deliveries-repository.ts';
import { deliverWebhook, type DeliverWebhookDeps } from '../use-cases/deliver-webhook.ts';

export interface DeliveryWorkerOptions extends DeliverWebhookDeps {
  /** How long a claimed attempt is ours; longer than `timeoutMs`, so a live attempt is never taken over. */
  leaseMs: number;
  pollIntervalMs: number;
  batchSize: number;
}

export interface DeliveryWorker {
  /** Look for due work now (commits that queue deliveries signal it too; the database is the truth). */
  wake(): void;
  /** Stops claiming and waits for the attempts under way to be recorded. */
  stop(): Promise<void>;
}

/**
 * The worker that delivers webhooks, on the platform's poller (woken when a commit queues
 * deliveries): claim due deliveries with a lease, send them with no transaction open, then
 * record each result. Any number of instances can run side by side.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { logger } = options;
  const poller = startPoller({
    name: 'webhook deliveries',
    intervalMs: options.pollIntervalMs,
    wakeOn: [DELIVERIES_SIGNAL],
    logger,
    async pass() {
      const now = new Date();
      const claims = await claimDue(options.db.knex, {
        now,
        leaseUntil: new Date(now.getTime() + options.leaseMs),
        limit: options.batchSize,
        token: randomUUID(),
      });
      if (claims.length === 0) return { done: 0, more: false };
      // The batch's own span links to the requests behind its events; each attempt stays in its request's trace.
      await inBackgroundSpan('webhook delivery batch', linksTo(claims.map((claim) => claim.traceContext)), { 'webhook.attempts': claims.length }, () =>
        Promise.all(
          claims.map((claim) =>
            // A failure to record leaves the claim to expire, so the attempt is made again later.
            deliverWebhook(options, claim).catch((err: unknown) =>
              logger.error({ err, event_id: claim.event.id, endpoint_id: claim.endpoint.id }, 'webhook attempt not recorded'),
            ),
          ),
        ),
      );
      // A full batch suggests more is due: go again at once.
      return { done: claims.length, more: claims.length === options.batchSize };
    },
  });

  return {
    wake: () => poller.wake(),
    stop: () => poller.stop(),
  };
}
