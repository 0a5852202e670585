import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

export const WEBHOOK_ATTEMPT_STATUSES = ['succeeded', 'failed'] as const;

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
    error: z.string().nullable().describe('Why the attempt failed (timeout, connection refused, non-2xx); null on success.'),
    duration_ms: z.number().int().min(0),
    next_retry_at: unixSeconds.nullable().describe('When the next attempt is due; null after success or the last attempt.'),
    created_at: unixSeconds,
  }),
);
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;
