import { ApiError, apiErrorFromZod, isZodSchema, type RouteEntry } from '@connectivity/contracts';
import { findUnstorable, isUnstorableText, unstorableId, unstorableParameter } from '@connectivity/platform';

export interface RequestParts {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

/**
 * Step 8 of the order of checks: the request against the route's contract schemas, path then
 * query then body. The first problem becomes `missing_parameter` or `invalid_parameter` with
 * `param`; a parameter the route does not declare is `invalid_parameter` as well.
 */
export function validateRequest(entry: RouteEntry, parts: RequestParts): void {
  const route = entry.route as { pathParams?: unknown; query?: unknown; body?: unknown };

  // Text PostgreSQL refuses: as an id it names nothing (404), anywhere else it is bad input.
  if (Object.values(parts.params).some(isUnstorableText)) throw unstorableId();
  const unstorable = findUnstorable(parts.query) ?? (entry.route.method === 'GET' ? undefined : findUnstorable(parts.body));
  if (unstorable !== undefined) throw unstorableParameter(unstorable);

  if (isZodSchema(route.pathParams)) {
    const result = route.pathParams.safeParse(parts.params);
    if (!result.success) throw apiErrorFromZod(result.error, 'path');
  }

  if (isZodSchema(route.query)) {
    const result = route.query.safeParse(parts.query);
    if (!result.success) throw apiErrorFromZod(result.error, 'query');
  } else {
    const unknown = Object.keys(parts.query)[0];
    if (unknown !== undefined) {
      throw new ApiError('invalid_parameter', {
        param: unknown,
        message: `Unknown parameter \`${unknown}\` in the query string: this operation does not accept it.`,
      });
    }
  }

  if (entry.route.method === 'GET') return;
  if (isZodSchema(route.body)) {
    const result = route.body.safeParse(parts.body);
    if (!result.success) throw apiErrorFromZod(result.error, 'body');
  } else if (parts.body !== undefined) {
    const unknown = Object.keys(parts.body)[0];
    if (unknown !== undefined) {
      throw new ApiError('invalid_parameter', {
        param: unknown,
        message: `Unknown parameter \`${unknown}\` in the request body: this operation takes no body.`,
      });
    }
  }
}
