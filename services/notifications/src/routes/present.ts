import type { WebhookAttempt, WebhookEndpoint, WebhookEventSelector } from '@connectivity/contracts';
import type { AttemptView } from '../db/deliveries-repository.ts';
import type { EndpointRecord } from '../db/endpoints-repository.ts';

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The public endpoint object; the secret is never part of it (only the create answer adds it). */
export function presentEndpoint(endpoint: EndpointRecord): WebhookEndpoint {
  return {
    object: 'webhook_endpoint',
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents as WebhookEventSelector[],
    disabled: endpoint.disabled,
    disabled_reason: endpoint.disabledReason,
    environment: endpoint.environment,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

export function presentAttempt(attempt: AttemptView): WebhookAttempt {
  return {
    object: 'webhook_delivery_attempt',
    id: attempt.id,
    endpoint: attempt.endpointId,
    event: attempt.eventId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    status: attempt.status,
    status_code: attempt.statusCode,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    next_retry_at: attempt.nextRetryAt && seconds(attempt.nextRetryAt),
    created_at: seconds(attempt.createdAt),
  };
}
