import type { AppRouteResponse } from '@ts-rest/core';
import { ERROR_CATALOGUE, ERROR_CODES, STANDARD_ERROR_CODES } from '../errors/catalogue.ts';
import type { ErrorCode, ErrorStatus, StandardErrorCode } from '../errors/catalogue.ts';
import { errorResponseSchema } from '../errors/schema.ts';
import type { Scope } from '../schemas/enums.ts';
import type { RouteMetadata, ServiceName } from './metadata.ts';
import { readHeaders, writeHeaders } from './params.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

type ErrorResponses<C extends ErrorCode> = { [S in ErrorStatus<C>]: typeof errorResponseSchema };
type DocumentedCode<M extends HttpMethod, E extends ErrorCode> = StandardErrorCode | E | (M extends 'GET' ? never : IdempotencyErrorCode);

/** One error-body response per distinct status of `codes`. */
export function errorResponses<const C extends ErrorCode>(codes: readonly C[]): ErrorResponses<C> {
  return Object.fromEntries(codes.map((code) => [ERROR_CATALOGUE[code].status, errorResponseSchema])) as ErrorResponses<C>;
}

/**
 * Every mutating call can fail on its Idempotency-Key: absent, not 8 to 128 characters (invalid_parameter,
 * `param: "Idempotency-Key"`), or already used for another request (record 0255).
 */
export const IDEMPOTENCY_ERROR_CODES = ['idempotency_key_required', 'invalid_parameter', 'idempotency_key_reused'] as const satisfies readonly ErrorCode[];
type IdempotencyErrorCode = (typeof IDEMPOTENCY_ERROR_CODES)[number];

type OperationOptions<E extends ErrorCode> = {
  service: ServiceName;
  scopes: readonly Scope[];
  /** Errors documented on top of the standard ones (S). */
  errors?: readonly E[];
  testOnly?: true;
  /** Media types of a success answer that is not JSON (see `RouteMetadata.produces`). */
  produces?: readonly string[];
  /** The answer is a long-lived stream (see `RouteMetadata.stream`). */
  stream?: true;
};

/**
 * The parts every authenticated route shares, built from its method: headers (Idempotency-Key on mutating
 * methods), the success and error responses, and the metadata. Routes spread it next to path and payload.
 */
export function operation<const M extends HttpMethod, const S extends Record<number, AppRouteResponse>, const E extends ErrorCode = never>(
  method: M,
  success: S,
  options: OperationOptions<E>,
) {
  const documented = new Set<ErrorCode>([...STANDARD_ERROR_CODES, ...(method === 'GET' ? [] : IDEMPOTENCY_ERROR_CODES), ...(options.errors ?? [])]);
  const errors = ERROR_CODES.filter((code) => documented.has(code));
  const metadata: RouteMetadata = {
    service: options.service,
    scopes: options.scopes,
    auth: true,
    idempotent: method !== 'GET',
    errors,
    ...(options.testOnly && { testOnly: true }),
    ...(options.produces && { produces: options.produces }),
    ...(options.stream && { stream: true }),
  };
  return {
    method,
    headers: (method === 'GET' ? readHeaders : writeHeaders) as M extends 'GET' ? typeof readHeaders : typeof writeHeaders,
    responses: { ...success, ...errorResponses(errors) } as S & ErrorResponses<DocumentedCode<M, E>>,
    metadata,
    strictStatusCodes: true as const,
  };
}
