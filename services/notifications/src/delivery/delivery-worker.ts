import { randomUUID } from 'node:crypto';
import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { domainMetrics, inBackgroundSpan, linksTo, newId, startPoller, type Database, type Logger } from '@connectivity/platform';
import { classifyAttempt, type AttemptResult } from '../domain/delivery-outcome.ts';
import { egressPolicy } from '../domain/endpoint-url.ts';
import { nextRetryDelayMs, type RetryPolicy } from '../domain/retry-policy.ts';
import { claimDue, DELIVERIES_SIGNAL, recordAttempt, type Claim } from '../db/deliveries-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { startRetention, type RetentionOptions } from './retention.ts';
import { sendWebhook } from './http-sender.ts';
import type { ResolveHost } from './public-host.ts';
import { signatureHeaders } from './sign.ts';

export interface DeliveryWorkerOptions {
  db: Database;
  logger: Logger;
  policy: RetryPolicy;
  timeoutMs: number;
  /** How long a claimed attempt is ours; longer than `timeoutMs`, so a live attempt is never taken over. */
  leaseMs: number;
  pollIntervalMs: number;
  batchSize: number;
  disableAfterMs: number;
  resolveHost: ResolveHost;
  /** WEBHOOK_ALLOW_PRIVATE: test endpoints may reach any address (see `egressPolicy`). */
  allowPrivate: boolean;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  retention: RetentionOptions;
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
const tracer = trace.getTracer('@connectivity/notifications');

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger, policy } = options;
  const streakReason = `Every delivery to this endpoint failed for ${formatDuration(options.disableAfterMs)}: it is disabled until you enable it again.`;

  /** The attempt's HTTP call; a secret that cannot be opened fails the attempt without one. */
  async function send(claim: Claim, body: string, at: Date): Promise<AttemptResult> {
    let secret: string;
    try {
      secret = options.secrets.open(claim.endpoint.sealedSecret, claim.endpoint.id);
    } catch (err) {
      logger.error({ err, endpoint_id: claim.endpoint.id }, 'webhook signing secret cannot be opened with WEBHOOK_SECRET_KEY');
      return { kind: 'error', failure: 'not_sent', detail: 'signing secret cannot be opened', durationMs: 0 };
    }
    return sendWebhook({
      url: claim.endpoint.url,
      policy: egressPolicy(claim.endpoint.environment, options.allowPrivate),
      headers: signatureHeaders(secret, claim.event.id, body, at),
      body,
      timeoutMs: options.timeoutMs,
      resolveHost: options.resolveHost,
    });
  }

  /** One attempt, as a span of the trace that caused the event (the HTTP call is its child). */
  function deliverInTrace(claim: Claim): Promise<void> {
    const parent = propagation.extract(ROOT_CONTEXT, claim.traceContext);
    return tracer.startActiveSpan(
      'webhook deliver',
      { kind: SpanKind.PRODUCER, attributes: { 'event.id': claim.event.id, 'event.type': claim.event.type, 'webhook.endpoint.id': claim.endpoint.id, 'webhook.attempt': claim.attempt } },
      parent,
      async (span) => {
        try {
          await deliver(claim);
        } finally {
          span.end();
        }
      },
    );
  }

  async function deliver(claim: Claim): Promise<void> {
    const body = JSON.stringify(claim.event);
    const at = new Date();
    const result = await send(claim, body, at);
    const finished = new Date();
    const outcome = classifyAttempt(result, finished.getTime());
    trace.getActiveSpan()?.setAttributes({ 'http.response.status_code': outcome.statusCode ?? 0, 'webhook.succeeded': outcome.succeeded });
    const delay = outcome.succeeded || outcome.disableReason ? null : nextRetryDelayMs(policy, claim.attempt, outcome.retryAfterMs);
    const disabled = await recordAttempt(
      db.knex,
      {
        id: newId('webhookAttempt', at.getTime()),
        claim,
        succeeded: outcome.succeeded,
        statusCode: outcome.statusCode,
        error: outcome.succeeded ? null : outcome.error,
        durationMs: result.durationMs,
        nextAttemptAt: delay === null ? null : new Date(finished.getTime() + delay),
        disableReason: outcome.succeeded ? undefined : outcome.disableReason,
        at: finished,
      },
      { disableAfterMs: options.disableAfterMs, streakReason },
    );
    if (outcome.succeeded) {
      domainMetrics.webhookAttempt('succeeded');
      domainMetrics.webhookDelivered(Math.max(0, (finished.getTime() - Date.parse(claim.event.time)) / 1000));
    } else {
      domainMetrics.webhookAttempt(delay === null ? 'gave_up' : 'retry_scheduled');
    }
    if (disabled) domainMetrics.webhookEndpointDisabled(disabled);
    logger.debug(
      {
        event_id: claim.event.id,
        endpoint_id: claim.endpoint.id,
        attempt: claim.attempt,
        status_code: outcome.statusCode,
        succeeded: outcome.succeeded,
        // What the tenant sees as a class; the cause is for operators only.
        ...(result.kind === 'error' && { error: result.failure, detail: result.detail }),
      },
      'webhook attempt',
    );
  }

  const poller = startPoller({
    name: 'webhook deliveries',
    intervalMs: options.pollIntervalMs,
    wakeOn: [DELIVERIES_SIGNAL],
    logger,
    async pass() {
      const now = new Date();
      const claims = await claimDue(db.knex, {
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
            deliverInTrace(claim).catch((err: unknown) => logger.error({ err, event_id: claim.event.id, endpoint_id: claim.endpoint.id }, 'webhook attempt not recorded')),
          ),
        ),
      );
      // A full batch suggests more is due: go again at once.
      return { done: claims.length, more: claims.length === options.batchSize };
    },
  });
  const retention = startRetention({ knex: db.knex, logger, ...options.retention });

  return {
    wake: () => poller.wake(),
    async stop() {
      await retention.stop();
      await poller.stop();
    },
  };
}

function formatDuration(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return `${days} day${days === 1 ? '' : 's'}`;
  return `${ms} ms`;
}
