import { errorResponseSchema, RESPONSE_HEADERS } from '@connectivity/contracts/public';
import type { ERROR_CATALOGUE, ErrorCode, ErrorObject, ErrorType } from '@connectivity/contracts/public';
import { parseRetryAfter } from './retry.ts';

/** The codes of the contract's error catalogue whose type is `T`, e.g. `CodeOfType<'rate_limit'>` is `'rate_limited'`. */
export type CodeOfType<T extends ErrorType> = {
  [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]['type'] extends T ? C : never;
}[ErrorCode];

/** What the SDK knows about the HTTP answer an error came from. */
export interface ErrorResponseInfo {
  status: number;
  headers: Headers;
}

/**
 * An error answered by the API: the `{ error: {...} }` body of the contract, with the HTTP status,
 * the `Request-Id` to quote to support, and the response headers. Subclasses group the codes by
 * their `type` (`InvalidRequestError`, `RateLimitError`, ...); branch on `code` for the detail.
 */
export class ConnectivityError<T extends ErrorType = ErrorType> extends Error {
  override name = 'ConnectivityError';
  /** The HTTP status, as the error catalogue gives it for `code`. */
  readonly status: number;
  readonly type: T;
  /** Stable, for programs to branch on; `message` is for people and may change. */
  readonly code: CodeOfType<T>;
  /** The parameter at fault, when the error is about one (a field, `cursor`, `Idempotency-Key`). */
  readonly param: string | undefined;
  /** `{base_url}/v1/errors/<code>`: the page describing the code. */
  readonly link: string;
  readonly detail: string | undefined;
  /** The `Request-Id` response header (`req_...`): the same id is in the service's logs. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Headers;
  /** The error object as received. */
  readonly error: ErrorObject;

  constructor(error: ErrorObject & { type: T }, response: ErrorResponseInfo) {
    super(error.message);
    this.status = response.status;
    this.type = error.type;
    this.code = error.code as CodeOfType<T>;
    this.param = error.param;
    this.link = error.link;
    this.detail = error.detail;
    this.requestId = response.headers.get(RESPONSE_HEADERS.requestId) ?? undefined;
    this.retryAfterSeconds = parseRetryAfter(response.headers.get(RESPONSE_HEADERS.retryAfter));
    this.headers = response.headers;
    this.error = error;
  }
}

/** 400: a parameter is missing or wrong, the body is not JSON, the version is unknown, or Idempotency-Key is missing. */
export class InvalidRequestError extends ConnectivityError<'invalid_request'> {
  override name = 'InvalidRequestError';
}
/** 401: no key, an unknown key or a revoked key. */
export class AuthenticationError extends ConnectivityError<'authentication'> {
  override name = 'AuthenticationError';
}
/** 402/403: the key lacks a scope, the wrong environment's key, an unverified account, too low a balance. */
export class PermissionError extends ConnectivityError<'permission'> {
  override name = 'PermissionError';
}
/** 404: no such resource for this account, or no such route. */
export class NotFoundError extends ConnectivityError<'not_found'> {
  override name = 'NotFoundError';
}
/** 409: an Idempotency-Key reused for another request, a duplicate resource, a state move the life cycle forbids. */
export class ConflictError extends ConnectivityError<'conflict'> {
  override name = 'ConflictError';
}
/** 429: too many requests; `retryAfterSeconds` says when to try again (the client already retried). */
export class RateLimitError extends ConnectivityError<'rate_limit'> {
  override name = 'RateLimitError';
}
/** 409/503: the operation or bundle is not available (sandbox-only, not orderable, no prices). */
export class CapabilityError extends ConnectivityError<'capability'> {
  override name = 'CapabilityError';
}
/** 503: the supplier is unreachable or refused. */
export class SupplierError extends ConnectivityError<'supplier'> {
  override name = 'SupplierError';
}
/** 500: an unexpected error on the service's side; quote `requestId` to support. */
export class InternalError extends ConnectivityError<'internal'> {
  override name = 'InternalError';
}

type ErrorClass<T extends ErrorType> = new (error: ErrorObject & { type: T }, response: ErrorResponseInfo) => ConnectivityError<T>;

/** One class per error type of the catalogue; `satisfies` fails to compile when the catalogue gains a type. */
export const ERROR_CLASSES = {
  invalid_request: InvalidRequestError,
  authentication: AuthenticationError,
  permission: PermissionError,
  not_found: NotFoundError,
  conflict: ConflictError,
  rate_limit: RateLimitError,
  capability: CapabilityError,
  supplier: SupplierError,
  internal: InternalError,
} as const satisfies { [T in ErrorType]: ErrorClass<T> };

/** No answer came back: the connection failed or timed out on every attempt. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  /** How many times the request was sent. */
  readonly attempts: number;

  constructor(message: string, options: { cause: unknown; attempts: number }) {
    super(message, { cause: options.cause });
    this.attempts = options.attempts;
  }
}

/**
 * An answer that is not the contract's: an error status without the error object (a proxy's HTML
 * page, a wrong base URL), a code this SDK does not know, or a success body that is not JSON.
 */
export class UnexpectedResponseError extends Error {
  override name = 'UnexpectedResponseError';
  readonly status: number;
  readonly requestId: string | undefined;
  readonly headers: Headers;
  /** The body as received: parsed JSON, or text. */
  readonly body: unknown;

  constructor(response: ErrorResponseInfo & { body: unknown }) {
    const snippet = typeof response.body === 'string' ? response.body.slice(0, 200) : JSON.stringify(response.body)?.slice(0, 200);
    super(`Unexpected response from the API (HTTP ${response.status}): ${snippet ?? 'no body'}`);
    this.status = response.status;
    this.requestId = response.headers.get(RESPONSE_HEADERS.requestId) ?? undefined;
    this.headers = response.headers;
    this.body = response.body;
  }
}

/** Every error a call of the client can throw, besides an `AbortError` of the caller's own signal. */
export type ConnectivityClientError = ConnectivityError | ConnectionError | UnexpectedResponseError;

/** The typed error of a non-2xx answer: the catalogue's class for its type, or `UnexpectedResponseError`. */
export function errorFromResponse(response: ErrorResponseInfo & { body: unknown }): ConnectivityError | UnexpectedResponseError {
  const parsed = errorResponseSchema.safeParse(response.body);
  if (!parsed.success) return new UnexpectedResponseError(response);
  const { error } = parsed.data;
  const ErrorClassOfType = ERROR_CLASSES[error.type] as ErrorClass<ErrorType>;
  return new ErrorClassOfType(error, response);
}

export function isConnectivityError(value: unknown): value is ConnectivityError {
  return value instanceof ConnectivityError;
}
