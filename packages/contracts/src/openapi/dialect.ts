import { withoutNullable, type JsonSchema } from '../json-schema.ts';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

function convertSchema(holder: Node): void {
  if (isNode(holder.schema)) holder.schema = withoutNullable(holder.schema as JsonSchema);
}

function convertContent(holder: unknown): void {
  if (!isNode(holder) || !isNode(holder.content)) return;
  for (const media of Object.values(holder.content)) if (isNode(media)) convertSchema(media);
}

function convertOperation(operation: unknown): void {
  if (!isNode(operation)) return;
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) if (isNode(parameter)) convertSchema(parameter);
  convertContent(operation.requestBody);
  for (const response of Object.values(isNode(operation.responses) ? operation.responses : {})) {
    convertContent(response);
    for (const header of Object.values(isNode(response) && isNode(response.headers) ? response.headers : {})) if (isNode(header)) convertSchema(header);
  }
}

/**
 * Rewrites every schema of a generated OpenAPI 3.0 document in JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1 (the generator speaks 3.0): schemas of components, parameters, headers, bodies and
 * answers, in paths and webhooks alike. The document is changed in place.
 */
export function toOpenApi31Schemas(document: Node): void {
  const components = isNode(document.components) ? document.components : {};
  if (isNode(components.schemas)) {
    for (const [name, schema] of Object.entries(components.schemas)) {
      if (isNode(schema)) components.schemas[name] = withoutNullable(schema as JsonSchema);
    }
  }
  for (const kind of ['parameters', 'headers'] as const) {
    for (const item of Object.values(isNode(components[kind]) ? components[kind] : {})) if (isNode(item)) convertSchema(item);
  }
  for (const section of [document.paths, document.webhooks]) {
    for (const item of Object.values(isNode(section) ? section : {})) {
      if (isNode(item)) for (const operation of Object.values(item)) convertOperation(operation);
    }
  }
}
