import { isApiError, type ApiError } from '@connectivity/contracts';

/** The ApiError that `fn` throws; fails the test when it throws nothing or something else. */
export function apiErrorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
