import { ERROR_CATALOGUE, isErrorCode } from './catalogue.ts';
import type { ErrorCode, ErrorType } from './catalogue.ts';
import { DEFAULT_ERROR_MESSAGES } from './messages.ts';
import type { ErrorResponse } from './schema.ts';

export type ApiErrorOptions = {
  message?: string;
  param?: string;
  detail?: string;
  cause?: unknown;
  /** The `Retry-After` (seconds) the answer carries, e.g. a service's as it is passed on. */
  retryAfter?: string;
};

/** The one way to fail a request: thrown anywhere, rendered by the error middleware with `toBody`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param?: string;
  readonly detail?: string;
  readonly retryAfter?: string;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.message ?? DEFAULT_ERROR_MESSAGES[code], options.cause === undefined ? undefined : { cause: options.cause });
    const definition = ERROR_CATALOGUE[code];
    this.code = code;
    this.status = definition.status;
    this.type = definition.type;
    if (options.param !== undefined) this.param = options.param;
    if (options.detail !== undefined) this.detail = options.detail;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }

  /** The response body; `link` points at the error's page under `baseUrl`. */
  toBody(baseUrl: string): ErrorResponse {
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        ...(this.param !== undefined && { param: this.param }),
        link: errorLink(baseUrl, this.code),
        ...(this.detail !== undefined && { detail: this.detail }),
      },
    };
  }
}

export function errorLink(baseUrl: string, code: ErrorCode): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/errors/${code}`;
}

// Duck-typed as well as instanceof, so an ApiError from another copy of this module is still recognised.
export function isApiError(value: unknown): value is ApiError {
  if (value instanceof ApiError) return true;
  if (!(value instanceof Error) || value.name !== 'ApiError') return false;
  const candidate = value as Error & { code?: unknown; toBody?: unknown };
  return isErrorCode(candidate.code) && typeof candidate.toBody === 'function';
}
