// The 25 error codes of the specification's error table, in table order, with their type and HTTP status, and
// the edge's own beyond it (`request_timeout`, record 0201; `method_not_allowed`, `signature_invalid`, record 0204)
// next to the codes of their type; then `quota_exceeded` (record 0211).
export const ERROR_TYPES = [
  'invalid_request',
  'authentication',
  'permission',
  'not_found',
  'conflict',
  'rate_limit',
  'capability',
  'supplier',
  'internal',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export type ErrorDefinition = { type: ErrorType; status: number; description: string };

export const ERROR_CATALOGUE = {
  missing_parameter: {
    type: 'invalid_request',
    status: 400,
    description: 'A required parameter is absent; `param` names it.',
  },
  invalid_parameter: {
    type: 'invalid_request',
    status: 400,
    description: 'A parameter has the wrong type or value, or is not a parameter of this operation; `param` names it.',
  },
  unsupported_version: {
    type: 'invalid_request',
    status: 400,
    description: 'The `Service-Version` header names a version this service does not serve (only `2026-09-01` is served).',
  },
  idempotency_key_required: {
    type: 'invalid_request',
    status: 400,
    description: 'A call that changes something was made without the `Idempotency-Key` header.',
  },
  body_not_json: {
    type: 'invalid_request',
    status: 400,
    description: 'The request body does not parse as JSON, or is JSON but not an object.',
  },
  request_timeout: {
    type: 'invalid_request',
    status: 408,
    description: 'The request (its headers, or its whole body) did not arrive within the time allowed; the connection is closed.',
  },
  method_not_allowed: {
    type: 'invalid_request',
    status: 405,
    description: 'The path exists but does not take this method; `Allow` lists the methods it takes.',
  },
  key_missing: {
    type: 'authentication',
    status: 401,
    description: 'No API key was presented: send `Authorization: Bearer <API_KEY>`.',
  },
  key_invalid: {
    type: 'authentication',
    status: 401,
    description: 'The bearer token is not a known API key.',
  },
  key_revoked: {
    type: 'authentication',
    status: 401,
    description: 'The API key has been revoked and can no longer be used.',
  },
  signature_invalid: {
    type: 'authentication',
    status: 401,
    description: "A vendor's callback to `/hooks/<vendor>` carries a missing or wrong signature for its exact bytes.",
  },
  key_out_of_scope: {
    type: 'permission',
    status: 403,
    description: 'The API key lacks the scope this operation requires.',
  },
  test_key_live_resource: {
    type: 'permission',
    status: 403,
    description: 'A test key was used on a live resource; use the live key of the account.',
  },
  live_key_test_resource: {
    type: 'permission',
    status: 403,
    description: 'A live key was used on a simulated resource or a sandbox-only endpoint; use the test key.',
  },
  verification_required: {
    type: 'permission',
    status: 403,
    description: 'The account must be verified before it can place live orders.',
  },
  balance_insufficient: {
    type: 'permission',
    status: 402,
    description: 'The account balance does not cover the price of this live order.',
  },
  resource_not_found: {
    type: 'not_found',
    status: 404,
    description: 'No resource with this id exists for this account.',
  },
  no_such_route: {
    type: 'not_found',
    status: 404,
    description: 'No operation exists for this method and path.',
  },
  idempotency_key_reused: {
    type: 'conflict',
    status: 409,
    description: 'The `Idempotency-Key` was already used for a different request, or its first request is still in progress.',
  },
  already_exists: {
    type: 'conflict',
    status: 409,
    description: 'A resource with the same identifying value already exists (e.g. a webhook endpoint with the same URL).',
  },
  invalid_state_transition: {
    type: 'conflict',
    status: 409,
    description: 'The eSIM cannot move from its current state to the requested one.',
  },
  rate_limited: {
    type: 'rate_limit',
    status: 429,
    description: 'Too many requests (120 per minute per key); wait for the time in `Retry-After` and retry.',
  },
  capability_not_live: {
    type: 'capability',
    status: 409,
    description: 'The operation or bundle exists only in the sandbox and cannot be used with a live key.',
  },
  capability_not_orderable: {
    type: 'capability',
    status: 409,
    description: 'The bundle or operation cannot be ordered at the moment (e.g. a retired bundle).',
  },
  pricing_unavailable: {
    type: 'capability',
    status: 503,
    description: 'Prices cannot be obtained from the supplier right now; retry later.',
  },
  supplier_unavailable: {
    type: 'supplier',
    status: 503,
    description: 'The supplier cannot be reached right now; retry later.',
  },
  supplier_refused: {
    type: 'supplier',
    status: 503,
    description: 'The supplier refused the request; retry later or contact support with the `Request-Id`.',
  },
  internal_error: {
    type: 'internal',
    status: 500,
    description: 'An unexpected error occurred on our side; retry later or contact support with the `Request-Id`.',
  },
  quota_exceeded: {
    type: 'permission',
    status: 403,
    description:
      'The account has reached a quota of its environment (test clocks, test eSIMs a day, webhook endpoints); the message names the limit and its value.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export type ErrorStatus<C extends ErrorCode = ErrorCode> = (typeof ERROR_CATALOGUE)[C]['status'];

// Object key order is insertion order for string keys, so this is the table order.
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOGUE, value);
}

/** The standard errors (S) every authenticated endpoint can answer with. */
export const STANDARD_ERROR_CODES = [
  'unsupported_version',
  'key_missing',
  'key_invalid',
  'key_revoked',
  'key_out_of_scope',
  'rate_limited',
  'internal_error',
] as const satisfies readonly ErrorCode[];
export type StandardErrorCode = (typeof STANDARD_ERROR_CODES)[number];
