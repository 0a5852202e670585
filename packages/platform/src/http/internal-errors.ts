import { ApiError, errorResponseSchema, isErrorCode } from '@connectivity/contracts';
import { errors as undiciErrors } from 'undici';

// How an internal call failed: the service's own error object, or no answer at all.

/**
 * How a call ended when no response came back. `notSent`: the connection was never made, so the
 * service certainly did not run; otherwise (a reset, a timeout) the outcome is unknown.
 */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure';
  readonly service: string;
  readonly notSent: boolean;
  readonly timedOut: boolean;
  constructor(service: string, options: { notSent: boolean; timedOut: boolean; cause: unknown }) {
    super(options.timedOut ? `${service} did not answer in time` : `${service} could not be reached`, { cause: options.cause });
    this.service = service;
    this.notSent = options.notSent;
    this.timedOut = options.timedOut;
  }
}

// Errors that mean the connection was never made, so the request cannot have been processed.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** A failure of the call itself (no response) as an UpstreamFailure: sent or not, timed out or not. */
export function upstreamFailureOf(service: string, error: unknown): UpstreamFailure {
  const name = error instanceof Error ? error.name : '';
  const timedOut =
    name === 'TimeoutError' || name === 'AbortError' || error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError;
  const code = (error as { code?: string } | undefined)?.code ?? (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  return new UpstreamFailure(service, { notSent: !timedOut && code !== undefined && NOT_SENT_CODES.has(code), timedOut, cause: error });
}

/**
 * The service's error object as the same ApiError (with the answer's `Retry-After`, to pass on);
 * anything else is the service failing.
 */
export function errorFromResponse(service: string, status: number, body: string, headers: Record<string, string> = {}): Error {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const result = errorResponseSchema.safeParse(parsed);
  if (result.success && isErrorCode(result.data.error.code)) {
    const { code, message, param, detail } = result.data.error;
    const retryAfter = headers['retry-after'];
    return new ApiError(code, {
      message,
      ...(param !== undefined && { param }),
      ...(detail !== undefined && { detail }),
      ...(retryAfter !== undefined && { retryAfter }),
    });
  }
  return new Error(`${service} answered ${status} without an error object`);
}
