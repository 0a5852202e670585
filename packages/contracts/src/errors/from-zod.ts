import type { ZodError, ZodIssue, ZodTypeAny } from 'zod';
import { ApiError } from './api-error.ts';
import { REQUEST_HEADERS, canonicalHeaderName } from '../headers.ts';

export type RequestLocation = 'body' | 'query' | 'path' | 'headers';

const WHERE: Record<Exclude<RequestLocation, 'headers'>, string> = {
  body: 'in the request body',
  query: 'in the query string',
  path: 'in the path',
};

/**
 * Turns the first validation issue into the catalogue's error: `missing_parameter` when the field is
 * absent, `invalid_parameter` otherwise (unknown keys included), with `param` naming the field.
 * A custom issue may name its `param` (`issue.params.param`), which is then used as it is.
 * Two header rules of the specification win: a missing `Idempotency-Key` is `idempotency_key_required`
 * and a bad `Service-Version` is `unsupported_version`.
 */
export function apiErrorFromZod(error: ZodError, location: RequestLocation): ApiError {
  const issue = innermost(error.issues[0]);
  if (issue === undefined) return new ApiError('invalid_parameter', { message: `Invalid request ${location}.` });

  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const path = unknownKey === undefined ? issue.path : [...issue.path, unknownKey];
  const missing = issue.code === 'invalid_type' && issue.received === 'undefined';

  // A custom check may name the parameter itself, e.g. `metadata[key]` for one metadata key.
  const named = issue.code === 'custom' ? (issue.params as { param?: unknown } | undefined)?.param : undefined;
  if (typeof named === 'string' && location !== 'headers') {
    return new ApiError('invalid_parameter', { param: named, message: `Invalid parameter \`${named}\` ${WHERE[location]}: ${problem(issue, location)}.` });
  }
  const param = paramName(path, location);

  if (location === 'headers') {
    if (param === REQUEST_HEADERS.idempotencyKey && missing) return new ApiError('idempotency_key_required', { param });
    if (param === REQUEST_HEADERS.serviceVersion) return new ApiError('unsupported_version', { param });
    const message = missing ? `Missing required header \`${param}\`.` : `Invalid header \`${param}\`: ${problem(issue, location)}.`;
    return new ApiError(missing ? 'missing_parameter' : 'invalid_parameter', { param, message });
  }

  if (path.length === 0) {
    const message = missing ? `Missing request ${location}.` : `Invalid request ${location}: ${problem(issue, location)}.`;
    return new ApiError(missing ? 'missing_parameter' : 'invalid_parameter', { param, message });
  }
  if (unknownKey !== undefined) {
    const message = `Unknown parameter \`${param}\` ${WHERE[location]}: this operation does not accept it.`;
    return new ApiError('invalid_parameter', { param, message });
  }
  if (missing) {
    return new ApiError('missing_parameter', { param, message: `Missing required parameter \`${param}\` ${WHERE[location]}.` });
  }
  const message = `Invalid parameter \`${param}\` ${WHERE[location]}: ${problem(issue, location)}.`;
  return new ApiError('invalid_parameter', { param, message });
}

function paramName(path: readonly (string | number)[], location: RequestLocation): string {
  if (path.length === 0) return location;
  if (location === 'headers') return canonicalHeaderName(String(path[0]));
  return path.join('.');
}

// A union reports one issue per branch; the first branch's first issue is the most telling one.
function innermost(issue: ZodIssue | undefined): ZodIssue | undefined {
  if (issue?.code === 'invalid_union') return innermost(issue.unionErrors[0]?.issues[0]) ?? issue;
  return issue;
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean (true or false)',
  object: 'an object',
  array: 'an array',
  null: 'null',
  nan: 'not a number',
  float: 'a number with a fraction',
};

const describeType = (type: string): string => ARTICLE[type] ?? type;

/** What is wrong, phrased to follow "`param`: " — schema messages that start with "must" are used as they are. */
function problem(issue: ZodIssue, location: RequestLocation): string {
  if (issue.message.startsWith('must ')) return issue.message;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = `must be ${describeType(issue.expected)}`;
      // Every query and header value arrives as a string, so naming the received type would only confuse.
      return location === 'query' || location === 'headers' || location === 'path' ? expected : `${expected}, but received ${describeType(issue.received)}`;
    }
    case 'invalid_literal':
      return `must be ${JSON.stringify(issue.expected)}`;
    case 'invalid_enum_value':
      return `must be one of: ${issue.options.join(', ')}`;
    case 'too_small':
      return bound(issue.type, issue.exact === true ? 'exactly' : issue.inclusive ? 'at least' : 'more than', issue.minimum);
    case 'too_big':
      return bound(issue.type, issue.exact === true ? 'exactly' : issue.inclusive ? 'at most' : 'less than', issue.maximum);
    case 'invalid_string':
      if (issue.validation === 'url') return 'must be a valid URL';
      if (issue.validation === 'datetime') return 'must be an RFC 3339 date-time';
      return 'has an invalid format';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.multipleOf)}`;
    default:
      return issue.message;
  }
}

function bound(type: string, relation: string, limit: number | bigint): string {
  const value = String(limit);
  if (type === 'string') return value === '1' && relation === 'at least' ? 'must not be empty' : `must be ${relation} ${value} characters long`;
  if (type === 'array' || type === 'set') return `must contain ${relation} ${value} item${value === '1' ? '' : 's'}`;
  return `must be ${relation} ${value}`;
}

/** Whether a contract slot holds a zod schema (ts-rest lets headers, query and body be other things). */
export const isZodSchema = (value: unknown): value is ZodTypeAny =>
  typeof value === 'object' && value !== null && typeof (value as { safeParse?: unknown }).safeParse === 'function';
