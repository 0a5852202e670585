import { z } from 'zod';
import { REGIONS, SERVICE_VERSIONS } from '../schemas/enums.ts';

// Request parameters shared by several routes. Header keys are lower case: Node delivers them so.

export const serviceVersionHeader = z
  .enum(SERVICE_VERSIONS)
  .describe('Optional; the only served version is `2026-09-01`. Without it the version pinned to the account is used.');

export const idempotencyKeyHeader = z
  .string()
  .min(8)
  .max(128)
  .describe(
    'Required on every call that changes something (8 to 128 printable ASCII characters); a repeat with the same key, from any API key of the account and environment, returns the stored response.',
  );

export const readHeaders = z.object({ 'service-version': serviceVersionHeader.optional() });
export const writeHeaders = readHeaders.extend({ 'idempotency-key': idempotencyKeyHeader });

/**
 * An integer query parameter. Query values arrive as strings: a string of decimal digits (with an optional
 * sign or fraction) becomes a number and is then checked, anything else stays a string and fails as the wrong type.
 * The cast keeps the client-side type a number; the schema also accepts the numeric string a server receives.
 */
function queryInteger(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === 'string' && /^[+-]?\d+(\.\d+)?$/.test(value) ? Number(value) : value),
    z.number({ invalid_type_error: 'must be an integer' }).int().min(min).max(max),
  ) as unknown as z.ZodEffects<z.ZodNumber, number, number>;
}

export const limitQuery = queryInteger(1, 100).default(20).describe('Page size, 1 to 100 (default 20).');
export const cursorQuery = z.string().min(1).max(1024).optional().describe('The `next_cursor` of the previous page.');

export const paginationQuery = z.object({ cursor: cursorQuery, limit: limitQuery }).strict();

export const countriesQuery = z
  .string()
  .regex(/^[A-Za-z]{2}(,[A-Za-z]{2})*$/, { message: 'must be a comma-separated list of two-letter country codes, e.g. GB,FR' })
  .transform((value) => value.toUpperCase().split(','))
  .describe('Comma-separated ISO country codes, e.g. `GB,FR`; returns bundles covering all of them (case ignored).');

export const regionQuery = z.enum(REGIONS).describe('Only bundles of this region.');

export const idPathParams = z.object({ id: z.string().min(1).max(200).describe('The resource id.') });

/** An integer in a JSON body: no coercion, so the string "2" is the wrong type. */
export function bodyInteger() {
  return z.number({ invalid_type_error: 'must be an integer' }).int();
}
