import { randomUUID } from 'node:crypto';
import { createBatcher, inBackgroundSpan, linksTo, startWorkPool } from '@connectivity/platform';
import { DELIVERIES_SIGNAL } from '../db/deliveries-repository.ts';
import { claimDue, type Claim } from '../db/delivery-claims.ts';
import type { AttemptRecord } from '../db/deliveries-repository.ts';
import { recordSuccesses } from '../db/recorded-successes.ts';
import { deliverWebhook, type DeliverWebhookDeps } from '../use-cases/deliver-webhook.ts';

export interface DeliveryWorkerOptions extends DeliverWebhookDeps {
  /** How long a claimed attempt is ours; longer than an attempt can take, so a live attempt is never taken over. */
  leaseMs: number;
  pollIntervalMs: number;
  /** Attempts this instance makes at once. */
  concurrency: number;
  /** Attempts under way to one endpoint, and for one account and environment, over every instance. */
  inFlight: { perEndpoint: number; perAccount: number };
}

export interface DeliveryWorker {
  /** Look for due work now (commits that queue deliveries signal it too; the database is the truth). */
  wake(): void;
  /** Stops claiming and waits for the attempts under way to be recorded. */
  stop(): Promise<void>;
}

/**
 * The worker that delivers webhooks, on the platform's work pool (woken when a commit queues
 * deliveries): claim due deliveries with a lease for the free slots, send each with no
 * transaction open and record its result; each attempt frees its slot when it is recorded, so a
 * receiver that never answers holds one slot, not the attempts claimed with it. Any number of
 * instances can run side by side.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { logger } = options;
  // The successes of attempts that end together are recorded by one statement (record 0195).
  const successes = createBatcher<AttemptRecord, void>({
    name: 'record webhook successes',
    max: Math.max(1, options.concurrency),
    run: async (records) => {
      await recordSuccesses(options.db.knex, records);
      return records.map(() => ({ status: 'fulfilled', value: undefined }));
    },
  });
  const deps = { ...options, recordSuccess: (record: AttemptRecord) => successes.add(record) };
  const pool = startWorkPool<Claim>({
    name: 'webhook deliveries',
    size: options.concurrency,
    intervalMs: options.pollIntervalMs,
    wakeOn: [DELIVERIES_SIGNAL],
    logger,
    async claim(free) {
      const now = new Date();
      const { claims, heldBack } = await claimDue(options.db.knex, {
        now,
        leaseUntil: new Date(now.getTime() + options.leaseMs),
        limit: free,
        token: randomUUID(),
        ...options.inFlight,
      });
      if (claims.length === 0) return { items: claims, more: heldBack };
      // The claim's span is a root of its own, linked to the requests behind its events; each attempt stays in its request's trace.
      return inBackgroundSpan('webhook delivery batch', linksTo(claims.map((claim) => claim.traceContext)), { 'webhook.attempts': claims.length }, () =>
        Promise.resolve({ items: claims, more: heldBack }),
      );
    },
    work: (claim) =>
      // A failure to record leaves the claim to expire, so the attempt is made again later.
      deliverWebhook(deps, claim).catch((err: unknown) =>
        logger.error({ err, event_id: claim.event.id, endpoint_id: claim.endpoint.id }, 'webhook attempt not recorded'),
      ),
  });

  return {
    wake: () => pool.wake(),
    stop: () => pool.stop(),
  };
}
