import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorCodeItemSchema } from '../schemas/error-code.ts';
import { eventTypeItemSchema } from '../schemas/event-type.ts';
import { listOf } from '../schemas/list.ts';
import { openObject, titled } from '../schemas/titled.ts';
import { versionSchema } from '../schemas/version.ts';
import type { RouteMetadata } from './metadata.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

const openApiDocumentSchema = titled('OpenApiDocument', openObject('An OpenAPI 3.1 document.'));

const openApiMetadata: RouteMetadata = { service: 'gateway', scopes: [], auth: false, idempotent: false, errors: [] };

/** The gateway's own endpoints about the API itself. */
export const metaRoutes = c.router({
  getVersion: {
    path: '/v1/version',
    summary: 'Get the API version',
    description: 'Returns the version that answers this account (pinned at its first call) and the versions served.',
    ...operation('GET', { 200: versionSchema }, { service: 'gateway', scopes: [] }),
  },
  listEventTypes: {
    path: '/v1/event_types',
    summary: 'List event types',
    description: 'Lists every event type the platform emits, with a description and the JSON Schema of its `data`.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('EventTypeList', eventTypeItemSchema) },
      {
        service: 'gateway',
        scopes: [],
        errors: ['invalid_parameter'],
      },
    ),
  },
  listErrorCodes: {
    path: '/v1/error_codes',
    summary: 'List error codes',
    description: 'Lists every error code with its type, HTTP status and meaning, in catalogue order.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('ErrorCodeList', errorCodeItemSchema) },
      {
        service: 'gateway',
        scopes: [],
        errors: ['invalid_parameter'],
      },
    ),
  },
  getErrorCode: {
    path: '/v1/errors/:code',
    summary: 'Get an error code',
    description: 'Describes one error code; every error `link` points here.',
    pathParams: z.object({ code: z.string().min(1).max(64).describe('An error code, e.g. `invalid_parameter`.') }),
    ...operation('GET', { 200: errorCodeItemSchema }, { service: 'gateway', scopes: [], errors: ['resource_not_found'] }),
  },
  getOpenApiDocument: {
    method: 'GET',
    path: '/v1/openapi.json',
    summary: 'Get the OpenAPI document',
    description: 'The machine-readable specification of this API; client libraries are generated from it. Needs no key.',
    responses: { 200: openApiDocumentSchema },
    metadata: openApiMetadata,
    strictStatusCodes: true,
  },
});
