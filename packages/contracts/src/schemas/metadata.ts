import { openApiOverride } from './openapi-override.ts';
import { z } from 'zod';
import { titled } from './titled.ts';

/** Stripe's limits on metadata (record 0257). */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/** How errors name one key: `metadata[key]`, the way the list filter spells it in a query string. */
export const metadataParam = (key: string): string => `metadata[${key}]`;

// Lengths count characters (code points), not UTF-16 units: an emoji is one character.
const characters = (text: string): number => [...text].length;

/** Why `key` cannot be a metadata key, or undefined when it can. */
export function metadataKeyProblem(key: string): string | undefined {
  if (key === '') return 'must be a key of at least 1 character';
  if (characters(key) > METADATA_LIMITS.keyLength) return `must be a key of at most ${METADATA_LIMITS.keyLength} characters`;
  if (key.includes('[') || key.includes(']')) return 'must be a key without `[` or `]`';
  return undefined;
}

type Issue = { message: string; param: string };

/**
 * The problems of a metadata object, in key order: too many keys (`param: "metadata"`), then per
 * key a bad key or a value that is not a string of at most 500 characters (`param: "metadata[key]"`).
 * `allowEmpty` admits `""` values (a PATCH removes those keys); a filter does not.
 */
export function metadataProblems(value: Record<string, unknown>, options: { allowEmpty: boolean }): Issue[] {
  const keys = Object.keys(value);
  if (keys.length > METADATA_LIMITS.keys) {
    return [{ param: 'metadata', message: `must have at most ${METADATA_LIMITS.keys} keys (it has ${keys.length})` }];
  }
  const issues: Issue[] = [];
  for (const key of keys) {
    const keyProblem = metadataKeyProblem(key);
    if (keyProblem !== undefined) {
      issues.push({ param: metadataParam(key), message: keyProblem });
      continue;
    }
    const item = value[key];
    if (typeof item !== 'string') issues.push({ param: metadataParam(key), message: 'must be a string' });
    else if (characters(item) > METADATA_LIMITS.valueLength) {
      issues.push({ param: metadataParam(key), message: `must be at most ${METADATA_LIMITS.valueLength} characters long` });
    } else if (item === '' && !options.allowEmpty) issues.push({ param: metadataParam(key), message: 'must not be empty' });
  }
  return issues;
}

/**
 * A metadata object in a request, checked by the rules above. Each issue is a custom one that names
 * its `param` (`apiErrorFromZod` uses it), so a bad key is reported as `metadata[key]`.
 */
function metadataInput(options: { allowEmpty: boolean; description: string }) {
  const schema = z.record(z.unknown()).superRefine((value, ctx) => {
    for (const issue of metadataProblems(value, options)) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: issue.message, params: { param: issue.param } });
    }
  }) as unknown as z.ZodType<Record<string, string>, z.ZodTypeDef, Record<string, string>>;
  return openApiOverride(schema.describe(options.description), {
    type: 'object',
    // `nullable: false` overrides what the generator says of `z.unknown()` values.
    additionalProperties: {
      type: 'string',
      ...(!options.allowEmpty && { minLength: 1 }),
      maxLength: METADATA_LIMITS.valueLength,
      nullable: false,
    },
    maxProperties: METADATA_LIMITS.keys,
  });
}

/** `metadata` of POST /v1/esim and PATCH /v1/esim/{id}. */
export const metadataInputSchema = metadataInput({
  allowEmpty: true,
  description:
    `Up to ${METADATA_LIMITS.keys} keys of at most ${METADATA_LIMITS.keyLength} characters (no \`[\` or \`]\`) with string values of ` +
    `at most ${METADATA_LIMITS.valueLength} characters. On a PATCH it is merged into the current metadata; a key set to \`""\` is removed.`,
});

/** `metadata[key]=value` pairs of GET /v1/esim: every pair must match. */
export const metadataFilterSchema = metadataInput({
  allowEmpty: false,
  description: 'Only eSIMs whose metadata has each of these key-value pairs, e.g. `metadata[order_ref]=A-1001`.',
});

/** `metadata` on orders and eSIMs: `{}` when none was set. */
export const metadataSchema = titled(
  'Metadata',
  z
    .record(z.string())
    .describe(
      `Your own key-value pairs: up to ${METADATA_LIMITS.keys} keys of at most ${METADATA_LIMITS.keyLength} characters, ` +
        `string values of at most ${METADATA_LIMITS.valueLength} characters; \`{}\` when none are set.`,
    ),
);
export type Metadata = z.infer<typeof metadataSchema>;

/**
 * A query string parsed without nesting (express's default) gives `metadata[key]=value` as the key
 * `metadata[key]`; a nesting parser (qs) gives `{ metadata: { key } }`. Both become the latter, so a
 * query schema sees one shape whichever parser read it. Other keys stay as they are (unknown ones
 * are then refused), and so does a `metadata` that is not an object (refused as the wrong type).
 */
export function foldMetadataQuery(query: unknown): unknown {
  const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isPlainObject(query)) return query;
  if (query.metadata !== undefined && !isPlainObject(query.metadata)) return query;
  const out: Record<string, unknown> = {};
  // Without a prototype, so a key such as `__proto__` is a key like any other.
  const pairs: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, query.metadata);
  let found = query.metadata !== undefined;
  for (const [name, value] of Object.entries(query)) {
    if (name === 'metadata') continue;
    const match = /^metadata\[(.*)\]$/s.exec(name);
    if (match === null) {
      out[name] = value;
    } else {
      pairs[match[1] ?? ''] = value;
      found = true;
    }
  }
  if (found) out.metadata = pairs;
  return out;
}
