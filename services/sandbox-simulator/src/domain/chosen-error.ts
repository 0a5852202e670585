import { ApiError, isErrorCode } from '@connectivity/contracts';

/**
 * The error `POST /v1/test/error` answers with: exactly the catalogue's error for `code` (its
 * status, type and link), with the caller's `param` and `message` when given. An unknown code
 * is the call's own mistake: 400 `invalid_parameter` on `code`.
 */
export function chosenError(input: { code: string; param?: string | undefined; message?: string | undefined }): ApiError {
  if (!isErrorCode(input.code)) {
    return new ApiError('invalid_parameter', {
      param: 'code',
      message: `"${input.code}" is not an error code; GET /v1/error_codes lists them.`,
    });
  }
  return new ApiError(input.code, { param: input.param, message: input.message });
}
