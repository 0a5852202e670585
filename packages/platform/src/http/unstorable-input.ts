import { ApiError } from '@connectivity/contracts';
import type { RequestHandler } from 'express';

/** Text PostgreSQL refuses to store: NUL, and lone UTF-16 surrogates (not valid Unicode). */
export const isUnstorableText = (text: string): boolean => text.includes('\u0000') || !text.isWellFormed();

/**
 * The first place in a parsed value (query or JSON body) holding text PostgreSQL would refuse, as
 * the `param` path of the catalogue's errors (`a.b.0`), or undefined. Keys count too.
 */
export function findUnstorable(value: unknown, path: (string | number)[] = []): string | undefined {
  if (typeof value === 'string') return isUnstorableText(value) ? path.join('.') || 'body' : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorable(item, [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (isUnstorableText(key)) return [...path, key].join('.');
      const found = findUnstorable(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export const unstorableParameter = (param: string): ApiError =>
  new ApiError('invalid_parameter', { param, message: `Invalid parameter \`${param}\`: must not contain NUL characters or invalid Unicode.` });

/** A path segment that can't be an id names no resource. */
export const unstorableId = (): ApiError => new ApiError('resource_not_found', { message: 'No such resource.' });

function decodedSegments(path: string): string[] {
  return path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}

/**
 * Bad bytes are bad input: text PostgreSQL would refuse is answered as the error object before a
 * handler can send it to the database (where it would be a 500). In the path it can only be an
 * id that names nothing (404); in the query or body it is 400 `invalid_parameter` naming the field.
 */
export const refuseUnstorableInput: RequestHandler = (req, _res, next) => {
  if (decodedSegments(req.path).some(isUnstorableText)) {
    next(unstorableId());
    return;
  }
  const param = findUnstorable(req.query) ?? findUnstorable(req.body);
  next(param === undefined ? undefined : unstorableParameter(param));
};
