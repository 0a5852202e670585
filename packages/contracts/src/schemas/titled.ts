import { openApiOverride } from './openapi-override.ts';
import { z } from 'zod';
import type { ZodTypeAny } from 'zod';

/** Names a schema so the OpenAPI document holds it once under components.schemas and refers to it by $ref. */
export function titled<T extends ZodTypeAny>(title: string, schema: T): T {
  return openApiOverride(schema, { title });
}

/** A JSON object with any members, documented as such (zod's `unknown` values otherwise render as `{nullable: true}`). */
export function openObject(description: string) {
  // Described before extending: zod's describe() clones the schema and would drop the OpenAPI override.
  return openApiOverride(z.record(z.unknown()).describe(description), { type: 'object', additionalProperties: true });
}
