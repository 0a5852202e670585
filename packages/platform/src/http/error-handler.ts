import { ApiError, isApiError } from '@connectivity/contracts';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.ts';
import { errorMessage } from '../errors.ts';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  /** The limit that was passed, in bytes (`entity.too.large`). */
  limit?: number;
}

/** A body limit as a person reads it: `1 MiB`, `64 kB`. */
export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${bytes} bytes`;
}

/** Maps errors raised by express's body parser to the catalogue (record 0255). */
function fromBodyParser(error: BodyParserError): ApiError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new ApiError('body_not_json', { message: 'The request body is not valid JSON.' });
    case 'entity.too.large':
      return new ApiError('invalid_parameter', { param: 'body', message: `The request body is larger than ${describeBytes(error.limit ?? 1024 * 1024)}.` });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('invalid_parameter', { param: 'body', message: 'The request body must be UTF-8 JSON.' });
    default:
      return undefined;
  }
}

/**
 * Errors express's router raises itself: a path parameter that is not valid percent-encoding
 * (`/v1/errors/%zz`) fails to decode with a URIError marked 400. It is the caller's mistake.
 */
function fromRouter(error: Error & { status?: number }): ApiError | undefined {
  if (error instanceof URIError && error.status === 400) {
    return new ApiError('invalid_parameter', { param: 'path', message: 'The path is not valid percent-encoding.' });
  }
  return undefined;
}

/**
 * The one place an error becomes a response: the spec's error object, never a stack trace and
 * never a bare 500. Unknown errors are logged (with the request id, by the logger's mixin) and
 * answered as `internal_error`.
 */
export function errorHandler(options: { baseUrl: string; logger: Logger }): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    try {
      // The client went away mid-request (reading its body failed with `aborted`): nobody is left
      // to answer, and it is not our failure. A destroyed request may have no socket left at all.
      if ((req.socket?.destroyed ?? true) || (error as { code?: unknown } | undefined)?.code === 'ECONNRESET') {
        options.logger.debug({ err: errorMessage(error) }, 'client closed the connection mid-request');
        res.destroy();
        return;
      }
      let apiError: ApiError;
      if (isApiError(error)) {
        apiError = error;
      } else {
        apiError = (error instanceof Error && (fromBodyParser(error) ?? fromRouter(error))) || new ApiError('internal_error');
        if (apiError.code === 'internal_error') options.logger.error({ err: error }, 'unhandled error');
      }
      if (apiError.retryAfter !== undefined && !res.hasHeader('retry-after')) res.setHeader('Retry-After', apiError.retryAfter);
      const challenge = bearerChallenge(apiError);
      if (challenge) res.setHeader('WWW-Authenticate', challenge);
      res.status(apiError.status).json(apiError.toBody(options.baseUrl));
    } catch (failure) {
      // Never express's HTML page (with its stack trace in development): a request whose error
      // cannot be rendered is cut off instead.
      options.logger.error({ err: failure }, 'rendering an error failed; connection closed');
      res.destroy();
    }
  };
}

/**
 * The challenge of a 401 (RFC 6750 §3): every 401 names the Bearer scheme; a token that was
 * presented but is unknown or revoked is `invalid_token`, a request without one gets no error
 * code (it simply did not authenticate).
 */
export function bearerChallenge(error: ApiError): string | undefined {
  if (error.status !== 401) return undefined;
  const realm = 'Bearer realm="Connectivity API"';
  return error.code === 'key_missing' ? realm : `${realm}, error="invalid_token"`;
}

/** Anything no route matched: 404 `no_such_route` (also a known path with an unknown method). */
export const noSuchRoute: RequestHandler = (req, _res, next) => {
  next(new ApiError('no_such_route', { message: `No route ${req.method} ${req.path}.` }));
};
