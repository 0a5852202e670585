import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject, SchemaObject } from 'openapi3-ts';
import { EVENT_CATALOGUE } from './events/catalogue.ts';
import { EVENT_TYPES } from './events/types.ts';
import { openApiSchemaOf } from './json-schema.ts';
import { baseComponents, extractTitled, SECURITY_SCHEME, TAGS } from './openapi/components.ts';
import { API_DESCRIPTION } from './openapi/description.ts';
import { enrichOperation } from './openapi/operation.ts';
import { contract } from './routes/contract.ts';
import { CURRENT_SERVICE_VERSION } from './schemas/enums.ts';

export type OpenApiDocument = OpenAPIObject;

export type BuildOpenApiOptions = {
  /** The public base URL of the gateway; relative `/` (the host serving the document) when absent. */
  serverUrl?: string;
};

/**
 * The OpenAPI 3.0.3 document of the public API, generated from the contract. The event catalogue is
 * embedded as `x-event-types` (3.0 has no webhooks section): one `{ type, description, data }` per type,
 * `data` referring to its schema under components.
 */
export function buildOpenApiDocument(options: BuildOpenApiOptions = {}): OpenApiDocument {
  const generated = generateOpenApi(
    contract,
    {
      info: { title: 'Connectivity Service API', version: CURRENT_SERVICE_VERSION, description: API_DESCRIPTION },
      servers: [{ url: options.serverUrl ?? '/', description: 'The gateway' }],
    },
    { setOperationId: true, operationMapper: enrichOperation },
  );
  const schemas: Record<string, SchemaObject> = { ...generated.components?.schemas };
  const eventTypes = EVENT_TYPES.map((type) => ({
    type,
    description: EVENT_CATALOGUE[type].description,
    data: extractTitled(openApiSchemaOf(EVENT_CATALOGUE[type].data) as SchemaObject, schemas),
  }));
  return {
    ...generated,
    openapi: '3.0.3',
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: Object.values(TAGS),
    components: { ...baseComponents(), schemas: sortKeys(schemas) },
    'x-event-types': eventTypes,
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
