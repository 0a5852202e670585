import type { ErrorCodeItem } from '../schemas/error-code.ts';
import { ERROR_CATALOGUE, ERROR_CODES } from './catalogue.ts';
import type { ErrorCode } from './catalogue.ts';

/** One item of GET /v1/error_codes; also the body of GET /v1/errors/{code}. */
export function errorCodeItem(code: ErrorCode): ErrorCodeItem {
  const { type, status, description } = ERROR_CATALOGUE[code];
  return { object: 'error_code', code, type, status, description };
}

/** The items of GET /v1/error_codes, in table order. */
export function errorCodeItems(): ErrorCodeItem[] {
  return ERROR_CODES.map(errorCodeItem);
}
