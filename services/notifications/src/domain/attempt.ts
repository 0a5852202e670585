import type { EventType, WebhookAttempt, WebhookAttemptError } from '@connectivity/contracts';

/** One recorded delivery attempt, as the deliveries list shows it. */
export interface AttemptView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  status: 'succeeded' | 'failed';
  statusCode: number | null;
  error: WebhookAttemptError | null;
  durationMs: number;
  nextRetryAt: Date | null;
  createdAt: Date;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The public attempt object. */
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
