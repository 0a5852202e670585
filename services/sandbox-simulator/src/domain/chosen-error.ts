import { ApiError, isErrorCode } from '@connectivity/contracts';

/**
 * The error `POST /v1/test/error` answers with: exactly the catalogue's error for `code` (its
 * status, type and link), with the caller's `param` and `message` when given, and `Retry-After`
 * on a 429 or 503. An unknown code
 * is the call's own mistake: 400 `invalid_parameter` on `code`.
 */
export function chosenError(input: { code: string; param?: string | undefined; message?: string | undefined }): ApiError {
  if (!isErrorCode(input.code)) {
    return new ApiError('invalid_parameter', {
      param: 'code',
      message: `"${input.code}" is not an error code; GET /v1/error_codes lists them.`,
    });
  }
  const error = new ApiError(input.code, { param: input.param, message: input.message });
  // Every 429 and 503 carries Retry-After (record 0255), the simulated ones too, so
  // a client's back-off can be tested against them.
  return error.status === 429 || error.status === 503
    ? new ApiError(input.code, { param: input.param, message: input.message, retryAfter: SIMULATED_RETRY_AFTER_SECONDS })
    : error;
}

/** What simulated 429s and 503s ask a client to wait: short, so a test's retry comes at once. */
export const SIMULATED_RETRY_AFTER_SECONDS = '1';
