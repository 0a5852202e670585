import SwaggerParser from '@apidevtools/swagger-parser';
import type { OperationObject, ParameterObject, ReferenceObject, ResponseObject } from 'openapi3-ts';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, EVENT_TYPES, routeTable } from '../src/index.ts';

const document = buildOpenApiDocument({ serverUrl: 'https://api.example.test' });

function operation(method: string, path: string): OperationObject {
  const found = (document.paths[path] as Record<string, OperationObject> | undefined)?.[method.toLowerCase()];
  if (found === undefined) throw new Error(`${method} ${path} is not in the document`);
  return found;
}

// Every endpoint of the specification, plus GET /v1/errors/{code}, the /v1/webhooks noun, the QR code and the test clocks (records 0253 and 0257).
const ENDPOINTS = [
  'GET /v1/version',
  'GET /v1/event_types',
  'GET /v1/error_codes',
  'GET /v1/esim/bundles',
  'GET /v1/esim',
  'POST /v1/esim',
  'GET /v1/esim/{id}',
  'PATCH /v1/esim/{id}',
  'GET /v1/esim/{id}/qr_code',
  'GET /v1/esim/{id}/topups',
  'POST /v1/esim/{id}/topups',
  'GET /v1/esim/{id}/bundles',
  'GET /v1/balance',
  'GET /v1/balance_transactions',
  'GET /v1/refunds',
  'GET /v1/refunds/{id}',
  'POST /v1/test/balance',
  'POST /v1/test/refunds/{id}/settle',
  'GET /v1/events',
  'GET /v1/events/stream',
  'POST /v1/events/replay',
  'GET /v1/api_keys',
  'GET /v1/request_logs',
  'POST /v1/test/usage',
  'POST /v1/test/error',
  'POST /v1/test/clocks',
  'GET /v1/test/clocks',
  'GET /v1/test/clocks/{id}',
  'DELETE /v1/test/clocks/{id}',
  'POST /v1/test/clocks/{id}/advance',
  'GET /v1/openapi.json',
  'GET /v1/errors/{code}',
  'POST /v1/webhooks',
  'GET /v1/webhooks',
  'GET /v1/webhooks/{id}',
  'PATCH /v1/webhooks/{id}',
  'DELETE /v1/webhooks/{id}',
  'GET /v1/webhooks/{id}/deliveries',
];

describe('OpenAPI document', () => {
  it('passes swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('is OpenAPI 3.1 for version 2026-09-01, served from the given URL', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('2026-09-01');
    expect(document.servers).toEqual([{ url: 'https://api.example.test', description: 'The gateway' }]);
    expect(buildOpenApiDocument().servers?.[0]?.url).toBe('/');
  });

  it.each(ENDPOINTS)('documents %s', (endpoint) => {
    const [method = '', path = ''] = endpoint.split(' ');
    expect(operation(method, path).operationId).toMatch(/^[a-z][A-Za-z]+$/);
  });

  it('documents exactly the public routes, none of the internal ones', () => {
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual([...ENDPOINTS].sort());
    expect(JSON.stringify(document.paths)).not.toContain('/internal/');
  });

  it('has unique operationIds equal to the route keys', () => {
    const ids = routeTable.map(({ route }) => operation(route.method, route.path.replace(/:(\w+)/g, '{$1}')).operationId);
    expect(ids).toEqual(routeTable.map(({ key }) => key));
  });

  it('secures every operation with the bearer key except openapi.json', () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(operation('GET', '/v1/openapi.json').security).toEqual([]);
    expect(Object.keys(operation('GET', '/v1/openapi.json').responses as object)).toEqual(['200']);
    expect(operation('GET', '/v1/esim').security).toBeUndefined();
  });

  it('requires Idempotency-Key on mutating operations and offers Service-Version everywhere but openapi.json', () => {
    for (const { route } of routeTable) {
      const refs = (operation(route.method, route.path.replace(/:(\w+)/g, '{$1}')).parameters ?? []).map(
        (parameter) => (parameter as ReferenceObject).$ref as string | undefined,
      );
      expect(refs.includes('#/components/parameters/IdempotencyKey')).toBe(route.method !== 'GET');
      expect(refs.includes('#/components/parameters/ServiceVersion')).toBe(route.path !== '/v1/openapi.json');
    }
    expect(document.components?.parameters?.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
  });

  it('documents query limits', () => {
    const limit = (operation('GET', '/v1/esim').parameters as ParameterObject[]).find((parameter) => parameter.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
  });

  it('uses the shared error schema and names the codes of each error status', () => {
    const responses = operation('POST', '/v1/esim').responses as Record<string, ResponseObject>;
    expect(responses['402']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(responses['402']?.description).toContain('balance_insufficient');
    expect(responses['409']?.description).toContain('idempotency_key_reused');
    expect(responses['201']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Order' });
    expect(document.components?.schemas?.ErrorResponse).toBeDefined();
  });

  it('documents the Request-Id, Service-Version and rate-limit response headers', () => {
    const headers = (operation('GET', '/v1/esim').responses as Record<string, ResponseObject>)['200']?.headers ?? {};
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(['Request-Id', 'Service-Version', 'RateLimit-Policy', 'RateLimit', 'RateLimit-Remaining']));
    const tooMany = (operation('GET', '/v1/esim').responses as Record<string, ResponseObject>)['429']?.headers ?? {};
    expect(Object.keys(tooMany)).toContain('Retry-After');
  });

  it('documents the QR code as a PNG or SVG image, and its errors as JSON', () => {
    const responses = operation('GET', '/v1/esim/{id}/qr_code').responses as Record<string, ResponseObject>;
    expect(responses['200']?.content).toMatchObject({
      'image/png': { schema: { type: 'string', format: 'binary' } },
      'image/svg+xml': { schema: { type: 'string' }, example: expect.stringMatching(/^<svg /) as unknown },
    });
    expect(responses['200']?.description).toContain('Accept');
    expect(responses['404']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    expect(operation('GET', '/v1/esim/{id}/qr_code')['x-scopes']).toEqual(['esim:read']);
  });

  it('documents metadata on eSIMs and orders, the install URL, and the metadata filter as a deep object', () => {
    const esim = document.components?.schemas?.Esim as { properties: Record<string, unknown>; required: string[] };
    expect(esim.properties.metadata).toEqual({ $ref: '#/components/schemas/Metadata' });
    expect(esim.properties.apple_install_url).toMatchObject({ type: ['string', 'null'], format: 'uri' });
    expect(JSON.stringify(document)).not.toContain('"nullable"');
    expect(esim.required).toEqual(expect.arrayContaining(['metadata', 'apple_install_url']));
    expect((document.components?.schemas?.Order as { properties: Record<string, unknown> }).properties.metadata).toEqual({
      $ref: '#/components/schemas/Metadata',
    });
    expect(document.components?.schemas?.Metadata).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    const filter = (operation('GET', '/v1/esim').parameters as ParameterObject[]).find((parameter) => parameter.name === 'metadata');
    expect(filter).toMatchObject({ in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', maxProperties: 50 } });
    expect(document.components?.schemas?.UpdateEsimRequest).toMatchObject({ minProperties: 1, properties: { metadata: { type: 'object' } } });
  });

  it('embeds the event catalogue as x-event-types', () => {
    const eventTypes = document['x-event-types'] as { type: string; data: ReferenceObject }[];
    expect(eventTypes.map((item) => item.type)).toEqual(EVENT_TYPES);
    for (const { data } of eventTypes) {
      const name = data.$ref.split('/').at(-1) ?? '';
      expect(document.components?.schemas?.[name], name).toBeDefined();
    }
  });
});
