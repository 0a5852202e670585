import type { SchemaObject } from 'openapi3-ts';
import type { ZodTypeAny } from 'zod';

/**
 * Overrides what the OpenAPI generator says of `schema`, exactly as @anatine/zod-openapi's
 * `extendApi` does (a test holds the two equal). The public contract is bundled into the SDK,
 * and this keeps the generator and its dependencies out of every integrator's install.
 */
export function openApiOverride<T extends ZodTypeAny>(schema: T, override: SchemaObject): T {
  const carrier = schema as T & { metaOpenApi?: SchemaObject };
  carrier.metaOpenApi = Object.assign(carrier.metaOpenApi ?? {}, override);
  return schema;
}
