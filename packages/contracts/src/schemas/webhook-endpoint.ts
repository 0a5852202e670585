import { z } from 'zod';
import { WEBHOOK_EVENT_SELECTORS } from '../events/types.ts';
import { ID_PREFIXES, STANDARD_WEBHOOK_SECRET_PATTERN, environmentSchema, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

const endpointShape = {
  object: z.literal('webhook_endpoint'),
  id: idSchema(ID_PREFIXES.webhookEndpoint),
  url: z.string().url(),
  description: z.string().nullable(),
  enabled_events: z.array(z.enum(WEBHOOK_EVENT_SELECTORS)).describe('Event types delivered here; `*` means all.'),
  disabled: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .describe('Why the service disabled the endpoint (HTTP 410, or 5 days of failures); null when enabled or disabled by you.'),
  environment: environmentSchema.describe('Only events of this environment are delivered here.'),
  created_at: unixSeconds,
  updated_at: unixSeconds,
};

export const webhookEndpointSchema = titled('WebhookEndpoint', z.object(endpointShape));
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** Only the create response carries the signing secret; it is never shown again. */
export const webhookEndpointWithSecretSchema = titled(
  'WebhookEndpointWithSecret',
  z.object({
    ...endpointShape,
    secret: z.string().regex(STANDARD_WEBHOOK_SECRET_PATTERN).describe('Standard Webhooks signing secret (`whsec_...`), shown only in this response.'),
  }),
);
export type WebhookEndpointWithSecret = z.infer<typeof webhookEndpointWithSecretSchema>;

export const deletedWebhookEndpointSchema = titled(
  'DeletedWebhookEndpoint',
  z.object({
    object: z.literal('webhook_endpoint'),
    id: idSchema(ID_PREFIXES.webhookEndpoint),
    deleted: z.literal(true),
  }),
);
export type DeletedWebhookEndpoint = z.infer<typeof deletedWebhookEndpointSchema>;
