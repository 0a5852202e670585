import { randomUUID } from 'node:crypto';
import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Database, Logger } from '@connectivity/platform';
import { newId } from '@connectivity/platform';
import { classifyAttempt, type AttemptResult } from '../domain/delivery-outcome.ts';
import { nextRetryDelayMs, type RetryPolicy } from '../domain/retry-policy.ts';
import { claimDue, recordAttempt, type Claim } from '../db/deliveries-repository.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { createPruner, type RetentionOptions } from './retention.ts';
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
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  retention: RetentionOptions;
}

export interface DeliveryWorker {
  /** Look for due work now instead of at the next poll (a hint; the database is the truth). */
  wake(): void;
  /** Stops claiming and waits for the attempts under way to be recorded. */
  stop(): Promise<void>;
}

/**
 * The loop that delivers webhooks: claim due deliveries (committed at once), send them with no
 * transaction open, then record each result. Any number of instances can run side by side.
 */
const tracer = trace.getTracer('@connectivity/notifications');

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger, policy } = options;
  const streakReason = `Every delivery to this endpoint failed for ${formatDuration(options.disableAfterMs)}: it is disabled until you enable it again.`;
  let stopping = false;
  let wakeUp: (() => void) | undefined;

  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const prune = createPruner({ knex: db.knex, logger, ...options.retention });

  /** The attempt's HTTP call; a secret that cannot be opened fails the attempt without one. */
  async function send(claim: Claim, body: string, at: Date): Promise<AttemptResult> {
    let secret: string;
    try {
      secret = options.secrets.open(claim.endpoint.sealedSecret, claim.endpoint.id);
    } catch (err) {
      logger.error({ err, endpoint_id: claim.endpoint.id }, 'webhook signing secret cannot be opened with WEBHOOK_SECRET_KEY');
      return { kind: 'error', error: 'The signing secret could not be read; the attempt was not sent.', durationMs: 0 };
    }
    return sendWebhook({
      url: claim.endpoint.url,
      environment: claim.endpoint.environment,
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
    await recordAttempt(
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
    logger.debug(
      { event_id: claim.event.id, endpoint_id: claim.endpoint.id, attempt: claim.attempt, status_code: outcome.statusCode, succeeded: outcome.succeeded },
      'webhook attempt',
    );
  }

  async function runOnce(): Promise<number> {
    const now = new Date();
    const claims = await claimDue(db.knex, {
      now,
      leaseUntil: new Date(now.getTime() + options.leaseMs),
      limit: options.batchSize,
      token: randomUUID(),
    });
    await Promise.all(
      claims.map((claim) =>
        // A failure to record leaves the claim to expire, so the attempt is made again later.
        deliverInTrace(claim).catch((err: unknown) => logger.error({ err, event_id: claim.event.id, endpoint_id: claim.endpoint.id }, 'webhook attempt not recorded')),
      ),
    );
    return claims.length;
  }

  const loop = (async () => {
    while (!stopping) {
      let claimed = 0;
      try {
        claimed = await runOnce();
      } catch (err) {
        logger.error({ err }, 'claiming webhook deliveries failed');
      }
      await prune.whenDue();
      // A full batch suggests more is due: go again at once.
      if (!stopping && claimed < options.batchSize) await idle();
    }
  })();

  return {
    wake() {
      wakeUp?.();
    },
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
    },
  };
}

function formatDuration(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return `${days} day${days === 1 ? '' : 's'}`;
  return `${ms} ms`;
}
