import type { ComponentsObject, HeaderObject, ParameterObject, SchemaObject, TagObject } from 'openapi3-ts';
import { RESPONSE_HEADERS, REQUEST_HEADERS } from '../headers.ts';
import { openApiSchemaOf } from '../json-schema.ts';
import { PARAMETER_EXAMPLES } from './examples/operations.ts';
import { SERVICE_VERSIONS } from '../schemas/enums.ts';
import { idSchema, ID_PREFIXES } from '../schemas/primitives.ts';
import type { RouteGroup } from '../routes/contract.ts';
import { idempotencyKeyHeader, serviceVersionHeader } from '../routes/params.ts';

export const TAGS: Record<RouteGroup, TagObject> = {
  meta: { name: 'Meta', description: 'The API itself: version, event types, error codes, this document.' },
  apiKeys: { name: 'API keys', description: 'The keys of the account. Keys are issued and revoked by the operator.' },
  requestLogs: { name: 'Request logs', description: 'The account’s recent requests, for debugging an integration.' },
  catalogue: { name: 'Catalogue', description: 'Bundles that can be bought.' },
  esim: { name: 'eSIMs', description: 'Buying eSIMs, reading them and changing their state.' },
  balance: {
    name: 'Balance',
    description: 'The balance live orders are paid from, every movement of it, and the refunds of cancelled eSIMs.',
  },
  topups: {
    name: 'Top-ups',
    description: 'Adding bundles to an eSIM that already exists: the offers, the purchase, and the bundles on the eSIM.',
  },
  events: { name: 'Events', description: 'The event log and its replay.' },
  webhooks: { name: 'Webhooks', description: 'Endpoints that receive events, signed per Standard Webhooks.' },
  test: { name: 'Test helpers', description: 'Sandbox-only helpers, for test keys.' },
  testClocks: { name: 'Test clocks', description: 'Clocks that sandbox eSIMs live in, advanced at will to test expiry. Test keys only.' },
};

export const SECURITY_SCHEME = 'bearerAuth';

/** Request header parameters, referred to as `#/components/parameters/<name>`. */
export const HEADER_PARAMETERS: Record<string, ParameterObject> = {
  IdempotencyKey: {
    name: REQUEST_HEADERS.idempotencyKey,
    in: 'header',
    required: true,
    description: idempotencyKeyHeader.description,
    schema: { type: 'string', minLength: 8, maxLength: 128 },
    example: PARAMETER_EXAMPLES['Idempotency-Key'],
  },
  ServiceVersion: {
    name: REQUEST_HEADERS.serviceVersion,
    in: 'header',
    required: false,
    description: serviceVersionHeader.description,
    schema: { type: 'string', enum: [...SERVICE_VERSIONS] },
    example: PARAMETER_EXAMPLES['Service-Version'],
  },
};

/** Lower-case header keys of the contract -> the component that documents them. */
export const HEADER_PARAMETER_REFS: Record<string, string> = {
  [REQUEST_HEADERS.idempotencyKey.toLowerCase()]: 'IdempotencyKey',
  [REQUEST_HEADERS.serviceVersion.toLowerCase()]: 'ServiceVersion',
};

const integer: SchemaObject = { type: 'integer', minimum: 0 };

/** Response headers (records 0250, 0255). */
export const RESPONSE_HEADER_COMPONENTS = {
  RequestId: {
    description: 'The id of this request (`req_...`); quote it to support.',
    schema: openApiSchemaOf(idSchema(ID_PREFIXES.request)),
  },
  ServiceVersion: { description: 'The API version that answered.', schema: { type: 'string', enum: [...SERVICE_VERSIONS] } },
  RateLimitPolicy: { description: 'The rate-limit policy (IETF draft), e.g. `"default";q=120;w=60`.', schema: { type: 'string' } },
  RateLimit: {
    description: 'Remaining requests and seconds to the window reset (IETF draft), e.g. `"default";r=119;t=42`.',
    schema: { type: 'string' },
  },
  RateLimitLimit: { description: 'Requests allowed per window (120).', schema: integer },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: integer },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: integer },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: integer },
  IdempotentReplayed: {
    description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, HeaderObject>;

export const RESPONSE_HEADER_NAMES: Record<keyof typeof RESPONSE_HEADER_COMPONENTS, string> = {
  RequestId: RESPONSE_HEADERS.requestId,
  ServiceVersion: RESPONSE_HEADERS.serviceVersion,
  RateLimitPolicy: RESPONSE_HEADERS.rateLimitPolicy,
  RateLimit: RESPONSE_HEADERS.rateLimit,
  RateLimitLimit: RESPONSE_HEADERS.rateLimitLimit,
  RateLimitRemaining: RESPONSE_HEADERS.rateLimitRemaining,
  RateLimitReset: RESPONSE_HEADERS.rateLimitReset,
  RetryAfter: RESPONSE_HEADERS.retryAfter,
  IdempotentReplayed: RESPONSE_HEADERS.idempotentReplayed,
};

export function baseComponents(): ComponentsObject {
  return {
    securitySchemes: {
      [SECURITY_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: `sk_test_...` reaches simulated resources only, `sk_live_...` live resources only.',
      },
    },
    parameters: HEADER_PARAMETERS,
    headers: RESPONSE_HEADER_COMPONENTS,
  };
}

/**
 * Moves every titled sub-schema into `schemas` and leaves a $ref in its place, the way @ts-rest/open-api
 * does for routes, so schemas added outside routes (event data) share the same components.
 */
export function extractTitled(node: SchemaObject, schemas: Record<string, SchemaObject>): SchemaObject {
  const out: SchemaObject = { ...node };
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = out[key];
    if (list) out[key] = list.map((item) => extractTitled(item as SchemaObject, schemas));
  }
  if (out.items) out.items = extractTitled(out.items, schemas);
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, value]) => [name, extractTitled(value as SchemaObject, schemas)]));
  }
  if (out.title === undefined) return out;
  const { nullable, ...component } = out;
  schemas[out.title] ??= component;
  const ref = { $ref: `#/components/schemas/${out.title}` };
  return nullable === true ? { nullable: true, allOf: [ref] } : ref;
}
