import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { domainMetrics, newId, type Database, type Logger } from '@connectivity/platform';
import type { Claim } from '../db/delivery-claims.ts';
import { recordAttempt, type AttemptRecord, type EndpointChange } from '../db/deliveries-repository.ts';
import { recordSuccesses } from '../db/recorded-successes.ts';
import { sendWebhook } from '../clients/webhook-sender.ts';
import type { ResolveHost } from '../clients/public-host.ts';
import { classifyAttempt, type AttemptResult } from '../domain/delivery-outcome.ts';
import type { CircuitPolicy } from '../domain/endpoint-circuit.ts';
import { egressPolicy } from '../domain/endpoint-url.ts';
import { nextRetryDelayMs, type RetryPolicy } from '../domain/retry-policy.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import { signatureHeaders } from '../domain/webhook-signature.ts';

export interface DeliverWebhookDeps {
  db: Database;
  logger: Logger;
  policy: RetryPolicy;
  /** The answer's whole window, the connection's and the first byte's (see `sendWebhook`). */
  timeouts: { answerMs: number; connectMs: number; firstByteMs: number };
  disableAfterMs: number;
  /** When an endpoint that keeps timing out is left alone for a while. */
  circuit: CircuitPolicy;
  resolveHost: ResolveHost;
  /** WEBHOOK_ALLOW_PRIVATE: test endpoints may reach any address (see `egressPolicy`). */
  allowPrivate: boolean;
  /** Opens the endpoints' sealed signing secrets. */
  secrets: SecretBox;
  /** Records a success with those of the attempts that end beside it (group commit); alone otherwise. */
  recordSuccess?: (record: AttemptRecord) => Promise<void>;
}

const tracer = trace.getTracer('@connectivity/notifications');

/**
 * One claimed attempt, as a span of the trace that caused the event (the HTTP call is its
 * child): signed and sent with no transaction open, then its result recorded (the next retry
 * scheduled, or the delivery ended, and a failing endpoint disabled).
 */
export function deliverWebhook(deps: DeliverWebhookDeps, claim: Claim): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, claim.traceContext);
  return tracer.startActiveSpan(
    'webhook deliver',
    {
      kind: SpanKind.PRODUCER,
      attributes: { 'event.id': claim.event.id, 'event.type': claim.event.type, 'webhook.endpoint.id': claim.endpoint.id, 'webhook.attempt': claim.attempt },
    },
    parent,
    async (span) => {
      try {
        await deliver(deps, claim);
      } finally {
        span.end();
      }
    },
  );
}

/** The attempt's HTTP call; a secret that cannot be opened fails the attempt without one. */
async function send(deps: DeliverWebhookDeps, claim: Claim, body: string, at: Date): Promise<AttemptResult> {
  let secret: string;
  try {
    secret = deps.secrets.open(claim.endpoint.sealedSecret, claim.endpoint.id);
  } catch (err) {
    deps.logger.error({ err, endpoint_id: claim.endpoint.id }, 'webhook signing secret cannot be opened with WEBHOOK_SECRET_KEY');
    return { kind: 'error', failure: 'not_sent', detail: 'signing secret cannot be opened', durationMs: 0 };
  }
  return sendWebhook({
    url: claim.endpoint.url,
    policy: egressPolicy(claim.endpoint.environment, deps.allowPrivate),
    headers: signatureHeaders(secret, claim.event.id, body, at),
    body,
    timeoutMs: deps.timeouts.answerMs,
    connectTimeoutMs: deps.timeouts.connectMs,
    firstByteTimeoutMs: deps.timeouts.firstByteMs,
    resolveHost: deps.resolveHost,
  });
}

async function deliver(deps: DeliverWebhookDeps, claim: Claim): Promise<void> {
  const { logger, policy } = deps;
  const body = JSON.stringify(claim.event);
  const at = new Date();
  const result = await send(deps, claim, body, at);
  const finished = new Date();
  const outcome = classifyAttempt(result, finished.getTime());
  trace.getActiveSpan()?.setAttributes({ 'http.response.status_code': outcome.statusCode ?? 0, 'webhook.succeeded': outcome.succeeded });
  const delay = outcome.succeeded || outcome.disableReason ? null : nextRetryDelayMs(policy, claim.attempt, outcome.retryAfterMs);
  const record: AttemptRecord = {
    id: newId('webhookAttempt', at.getTime()),
    claim,
    succeeded: outcome.succeeded,
    statusCode: outcome.statusCode,
    error: outcome.succeeded ? null : outcome.error,
    durationMs: result.durationMs,
    nextAttemptAt: delay === null ? null : new Date(finished.getTime() + delay),
    disableReason: outcome.succeeded ? undefined : outcome.disableReason,
    timedOut: result.kind === 'error' && result.failure === 'timeout',
    at: finished,
  };
  let changed: EndpointChange = {};
  if (outcome.succeeded) await (deps.recordSuccess ?? ((one) => recordSuccesses(deps.db.knex, [one])))(record);
  else
    changed = await recordAttempt(deps.db.knex, record, {
      disableAfterMs: deps.disableAfterMs,
      streakReason: streakReason(deps.disableAfterMs),
      circuit: deps.circuit,
    });
  if (outcome.succeeded) {
    domainMetrics.webhookAttempt('succeeded');
    domainMetrics.webhookDelivered(Math.max(0, (finished.getTime() - Date.parse(claim.event.time)) / 1000));
  } else {
    domainMetrics.webhookAttempt(delay === null ? 'gave_up' : 'retry_scheduled');
  }
  if (changed.disabled) domainMetrics.webhookEndpointDisabled(changed.disabled);
  if (changed.circuitOpened) {
    logger.info(
      { endpoint_id: claim.endpoint.id, timeouts_in_a_row: changed.circuitOpened.timeoutsInARow, open_until: changed.circuitOpened.openUntil },
      'webhook endpoint keeps timing out: its deliveries wait',
    );
  }
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

/** Why an endpoint was disabled after failing for `disableAfterMs`, as its owner reads it. */
function streakReason(disableAfterMs: number): string {
  return `Every delivery to this endpoint failed for ${formatDuration(disableAfterMs)}: it is disabled until you enable it again.`;
}

function formatDuration(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return `${days} day${days === 1 ? '' : 's'}`;
  return `${ms} ms`;
}
