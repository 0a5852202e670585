import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

export const WEBHOOK_ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;

/**
 * Why an attempt failed, as a class: what went wrong on the way is never shown as raw text (it
 * would tell what is listening where).
 */
export const WEBHOOK_ATTEMPT_ERRORS = ['connection_refused', 'timeout', 'tls_error', 'http_status', 'connection_error', 'not_sent'] as const;
export type WebhookAttemptError = (typeof WEBHOOK_ATTEMPT_ERRORS)[number];

/** One delivery attempt of one event to one endpoint (GET /v1/webhooks/{id}/deliveries). */
export const webhookAttemptSchema = titled(
  'WebhookDeliveryAttempt',
  z.object({
    object: z.literal('webhook_delivery_attempt'),
    id: idSchema(ID_PREFIXES.webhookAttempt),
    endpoint: idSchema(ID_PREFIXES.webhookEndpoint),
    event: idSchema(ID_PREFIXES.event),
    event_type: z.enum(EVENT_TYPES),
    attempt: z.number().int().min(1).describe('1 for the first try; retries count up to 10.'),
    status: z.enum(WEBHOOK_ATTEMPT_STATUSES).describe('`succeeded` on a 2xx answer within 15 s.'),
    status_code: z.number().int().min(100).max(599).nullable().describe('Null when no HTTP answer came back.'),
    error: z
      .enum(WEBHOOK_ATTEMPT_ERRORS)
      .nullable()
      .describe(
        'Why the attempt failed; null on success. `connection_refused`: the host refused the connection. `timeout`: no answer ' +
          'within 15 s. `tls_error`: the TLS handshake failed (certificate not valid for the host, expired or untrusted). ' +
          '`http_status`: the endpoint answered with a status other than 2xx (in `status_code`). `connection_error`: any other ' +
          'failure on the way: the host does not resolve, or only to addresses webhooks may not reach, is unreachable, or ' +
          'closed the connection before answering. `not_sent`: the attempt was not made, for a reason on our side; it is ' +
          'retried on the schedule.',
      ),
    duration_ms: z.number().int().min(0),
    next_retry_at: unixSeconds.nullable().describe('When the next attempt is due; null after success or the last attempt.'),
    created_at: unixSeconds,
  }),
);
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;
