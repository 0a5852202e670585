import { generateSchema } from '@anatine/zod-openapi';
import type { ZodTypeAny } from 'zod';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonSchema = { [key: string]: Json };

/** The OpenAPI 3.0 schema of a zod schema (the dialect of openapi.json, with `nullable`). */
export function openApiSchemaOf(schema: ZodTypeAny, useOutput = true): JsonSchema {
  return JSON.parse(JSON.stringify(generateSchema(schema, useOutput))) as JsonSchema;
}

/** A plain JSON Schema (draft 2020-12) of a zod schema: OpenAPI's `nullable` becomes a `null` type. */
export function jsonSchemaOf(schema: ZodTypeAny): JsonSchema {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...withoutNullable(openApiSchemaOf(schema)) };
}

/** An OpenAPI 3.0 schema in JSON Schema 2020-12, the dialect of OpenAPI 3.1: `nullable` becomes a `null` type. */
export function withoutNullable(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable') continue;
    out[key] = convert(value);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function convert(value: Json): Json {
  if (Array.isArray(value)) return value.map(convert);
  if (value !== null && typeof value === 'object') return withoutNullable(value);
  return value;
}
