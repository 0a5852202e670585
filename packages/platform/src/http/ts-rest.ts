import { ApiError, apiErrorFromZod } from '@connectivity/contracts';
import type { RequestValidationError } from '@ts-rest/express';
import type { NextFunction } from 'express';

/**
 * ts-rest's request validation failures, rendered as the catalogue's errors. Order matches the
 * gateway's (path, headers, query, body), so a request that got past the gateway and still
 * fails here is reported the same way.
 */
// The request and response are typed `unknown` so the handler fits every route's typed request.
export function requestValidationErrorHandler(err: RequestValidationError, _req: unknown, _res: unknown, next: NextFunction): void {
  const failure =
    (err.pathParams && apiErrorFromZod(err.pathParams, 'path')) ||
    (err.headers && apiErrorFromZod(err.headers, 'headers')) ||
    (err.query && apiErrorFromZod(err.query, 'query')) ||
    (err.body && apiErrorFromZod(err.body, 'body')) ||
    new ApiError('invalid_parameter');
  next(failure);
}

export const tsRestOptions = { requestValidationErrorHandler } as const;
