import { createHmac } from 'node:crypto';
import type { SchemaObject } from 'openapi3-ts';
import { EVENT_CATALOGUE } from '../events/catalogue.ts';
import { typedEventSchema } from '../events/typed.ts';
import { EVENT_TYPES, type EventType } from '../events/types.ts';
import { WEBHOOK_HEADERS } from '../headers.ts';
import { openApiSchemaOf } from '../json-schema.ts';
import { extractTitled } from './components.ts';
import { EVENT_EXAMPLES } from './examples/events.ts';
import { webhookEndpointWithSecretExample } from './examples/resources.ts';

export const WEBHOOK_EVENTS_TAG = {
  name: 'Webhook events',
  description:
    'What your webhook endpoints receive: one POST per event, signed per Standard Webhooks. Verify the signature on the ' +
    'raw body before you parse it (see “Verifying webhook signatures” in the introduction), answer 2xx within 15 seconds, ' +
    'and deduplicate on `webhook-id`: delivery is at least once.',
};

/** `esim.usage.threshold` -> `EsimUsageThresholdEvent`: the component name of the event's payload. */
export function eventComponentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/**
 * The Standard Webhooks signature of an example delivery, made with the example endpoint's secret,
 * so the reference shows headers that really verify against the body shown.
 */
export function exampleSignature(id: string, timestamp: number, body: string, secret = webhookEndpointWithSecretExample.secret): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

function signatureHeaders(type: EventType) {
  const event = EVENT_EXAMPLES[type];
  const timestamp = event.created_at + 1;
  const body = JSON.stringify(event);
  return [
    { name: WEBHOOK_HEADERS.id, description: 'The event id: the same on every retry and replay. Deduplicate on it.', example: event.id },
    {
      name: WEBHOOK_HEADERS.timestamp,
      description: 'When this attempt was signed, in Unix seconds. Refuse one more than 5 minutes off.',
      example: String(timestamp),
    },
    {
      name: WEBHOOK_HEADERS.signature,
      description:
        '`v1,` then the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the endpoint secret (base64 after `whsec_`).',
      example: exampleSignature(event.id, timestamp, body),
    },
  ].map(({ name, description, example }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example }));
}

/**
 * The `webhooks` section of OpenAPI 3.1: one entry per event type of the catalogue, whose request
 * body is that type's event with its own `data` schema. Payload schemas join `schemas` as components.
 */
export function webhooksSection(schemas: Record<string, SchemaObject>): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const envelope = typedEventSchema.optionsMap.get(type);
      if (envelope === undefined) throw new Error(`the typed event schema has no option for ${type}`);
      const name = eventComponentName(type);
      const schema = extractTitled({ ...(openApiSchemaOf(envelope) as SchemaObject), title: name, description: `An \`${type}\` event.` }, schemas);
      const post = {
        operationId: `${name.charAt(0).toLowerCase()}${name.slice(1)}`,
        summary: type,
        description: `${EVENT_CATALOGUE[type].description} \`data\` is \`${(schemas[name]?.properties?.data as { $ref?: string } | undefined)?.$ref?.split('/').at(-1) ?? 'an object'}\`.`,
        tags: [WEBHOOK_EVENTS_TAG.name],
        security: [],
        parameters: signatureHeaders(type),
        requestBody: { required: true, content: { 'application/json': { schema, example: EVENT_EXAMPLES[type] } } },
        responses: {
          '2XX': { description: 'Received: any 2xx within 15 seconds ends the delivery.' },
          '410': { description: 'Gone: the endpoint is disabled at once and nothing more is sent to it.' },
          default: {
            description:
              'Anything else, or no answer within 15 seconds, is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h ' +
              '(with jitter; a `Retry-After` on 429 or 503 is honoured).',
          },
        },
      };
      return [type, { post }];
    }),
  );
}
