import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject, SchemaObject } from 'openapi3-ts';
import { EVENT_CATALOGUE } from './events/catalogue.ts';
import { EVENT_TYPES } from './events/types.ts';
import { openApiSchemaOf } from './json-schema.ts';
import { baseComponents, extractTitled, SECURITY_SCHEME, TAGS } from './openapi/components.ts';
import { API_DESCRIPTION } from './openapi/description.ts';
import { toOpenApi31Schemas } from './openapi/dialect.ts';
import { attachExamples } from './openapi/examples/attach.ts';
import { errorsGuide, SIGNATURE_GUIDE } from './openapi/guides.ts';
import { webhooksSection, WEBHOOK_EVENTS_TAG } from './openapi/webhooks.ts';
import { enrichOperation } from './openapi/operation.ts';
import { contract } from './routes/contract.ts';
import { CURRENT_SERVICE_VERSION } from './schemas/enums.ts';

/** OpenAPI 3.1: openapi3-ts (2.x) types 3.0, so the 3.1 `webhooks` section is added here. */
export type OpenApiDocument = OpenAPIObject & { webhooks: Record<string, unknown> };

export type BuildOpenApiOptions = {
  /** The public base URL of the gateway; relative `/` (the host serving the document) when absent. */
  serverUrl?: string;
};

// Error links in examples need an absolute URL; a document served from `/` shows the local sandbox's.
const EXAMPLE_BASE_URL = 'http://localhost:8080';

/**
 * The OpenAPI 3.1 document of the public API, generated from the contract: every operation with
 * examples, and a `webhooks` section giving each event type of the catalogue its payload schema. The
 * catalogue is also kept as `x-event-types` (`{ type, description, data }`, `data` referring to the
 * schema of the event's `data` under components), for tools that read it.
 */
export function buildOpenApiDocument(options: BuildOpenApiOptions = {}): OpenApiDocument {
  const serverUrl = options.serverUrl ?? '/';
  const generated = generateOpenApi(
    contract,
    {
      info: {
        title: 'Connectivity Service API',
        version: CURRENT_SERVICE_VERSION,
        description: [API_DESCRIPTION, SIGNATURE_GUIDE, errorsGuide()].join('\n\n'),
      },
      servers: [{ url: serverUrl, description: 'The gateway' }],
    },
    { setOperationId: true, operationMapper: enrichOperation },
  );
  const schemas: Record<string, SchemaObject> = { ...generated.components?.schemas };
  const eventTypes = EVENT_TYPES.map((type) => ({
    type,
    description: EVENT_CATALOGUE[type].description,
    data: extractTitled(openApiSchemaOf(EVENT_CATALOGUE[type].data) as SchemaObject, schemas),
  }));
  const webhooks = webhooksSection(schemas);
  const components = { ...baseComponents(), schemas: sortKeys(schemas) };
  const exampleBaseUrl = /^https?:/.test(serverUrl) ? serverUrl : EXAMPLE_BASE_URL;
  attachExamples(generated.paths, exampleBaseUrl);
  const document: OpenApiDocument = {
    ...generated,
    openapi: '3.1.0',
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [...Object.values(TAGS), WEBHOOK_EVENTS_TAG],
    components,
    webhooks,
    'x-event-types': eventTypes,
  };
  toOpenApi31Schemas(document);
  return document;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
