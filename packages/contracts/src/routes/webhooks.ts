import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { WEBHOOK_EVENT_SELECTORS } from '../events/types.ts';
import { listOf } from '../schemas/list.ts';
import { titled } from '../schemas/titled.ts';
import { webhookAttemptSchema } from '../schemas/webhook-attempt.ts';
import { deletedWebhookEndpointSchema, webhookEndpointSchema, webhookEndpointWithSecretSchema } from '../schemas/webhook-endpoint.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

const endpointFields = {
  url: z
    .string()
    .url()
    .max(2048)
    .regex(/^https?:\/\//i, { message: 'must be an http or https URL' })
    .describe('Where events are POSTed. Live endpoints need https and a public address; test ones may use http and localhost.'),
  enabled_events: z.array(z.enum(WEBHOOK_EVENT_SELECTORS)).min(1).max(WEBHOOK_EVENT_SELECTORS.length).describe('Event types to deliver, or `["*"]` for all.'),
  description: z.string().max(500).describe('A note for yourself.'),
};

export const createWebhookBodySchema = titled(
  'CreateWebhookRequest',
  z
    .object({
      url: endpointFields.url,
      enabled_events: endpointFields.enabled_events,
      description: endpointFields.description.optional(),
    })
    .strict(),
);

export const updateWebhookBodySchema = titled(
  'UpdateWebhookRequest',
  z
    .object({
      ...endpointFields,
      disabled: z.boolean().describe('True stops deliveries; false resumes them.'),
    })
    .partial()
    .strict(),
);

const webhookPathParams = z.object({ id: z.string().min(1).max(200).describe('The webhook endpoint id (`we_...`).') });
const resourceErrors = ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'] as const;
const owner = { service: 'notifications', scopes: ['webhooks:write'] } as const;

/** Webhook endpoints and their delivery attempts, owned by the notifications service. */
export const webhookRoutes = c.router({
  createWebhook: {
    path: '/v1/webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'Creates an endpoint in the key’s environment and returns it with its signing `secret`, shown only here. ' +
      'Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). ' +
      'A second endpoint with the same URL gives 409 `already_exists`; one past the endpoints an account may have in an environment ' +
      '(16 unless the operator set another figure) gives 403 `quota_exceeded`.',
    body: createWebhookBodySchema,
    ...operation('POST', { 201: webhookEndpointWithSecretSchema }, { ...owner, errors: ['missing_parameter', 'invalid_parameter', 'quota_exceeded'] }),
  },
  listWebhooks: {
    path: '/v1/webhooks',
    summary: 'List webhook endpoints',
    description: 'Lists the webhook endpoints of the key’s environment, newest first.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('WebhookEndpointList', webhookEndpointSchema) },
      {
        service: 'notifications',
        scopes: ['webhooks:read'],
        errors: ['invalid_parameter'],
      },
    ),
  },
  getWebhook: {
    path: '/v1/webhooks/:id',
    summary: 'Get a webhook endpoint',
    description: 'Reads one webhook endpoint (without its secret).',
    pathParams: webhookPathParams,
    ...operation(
      'GET',
      { 200: webhookEndpointSchema },
      {
        service: 'notifications',
        scopes: ['webhooks:read'],
        errors: resourceErrors,
      },
    ),
  },
  updateWebhook: {
    path: '/v1/webhooks/:id',
    summary: 'Update a webhook endpoint',
    description: 'Changes the URL, the enabled events or the description, or disables or re-enables the endpoint.',
    pathParams: webhookPathParams,
    body: updateWebhookBodySchema,
    ...operation('PATCH', { 200: webhookEndpointSchema }, { ...owner, errors: ['invalid_parameter', ...resourceErrors] }),
  },
  deleteWebhook: {
    path: '/v1/webhooks/:id',
    summary: 'Delete a webhook endpoint',
    description: 'Terminates the endpoint: nothing more is delivered to it.',
    pathParams: webhookPathParams,
    ...operation('DELETE', { 200: deletedWebhookEndpointSchema }, { ...owner, errors: resourceErrors }),
  },
  listWebhookDeliveries: {
    path: '/v1/webhooks/:id/deliveries',
    summary: 'List delivery attempts',
    description: 'Lists the delivery attempts to this endpoint, newest first: event, status code, error, duration, next retry.',
    pathParams: webhookPathParams,
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('WebhookDeliveryAttemptList', webhookAttemptSchema) },
      {
        service: 'notifications',
        scopes: ['webhooks:read'],
        errors: ['invalid_parameter', ...resourceErrors],
      },
    ),
  },
});
