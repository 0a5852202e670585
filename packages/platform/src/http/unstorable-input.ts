import { ApiError } from '@connectivity/contracts';
import type { RequestHandler } from 'express';

/** Text PostgreSQL refuses to store: NUL, and lone UTF-16 surrogates (not valid Unicode). */
export const isUnstorableText = (text: string): boolean => text.includes('\u0000') || !text.isWellFormed();

/**
 * The first place in a parsed value (query or JSON body) holding text PostgreSQL would refuse, as
 * the `param` path of the catalogue's errors (`a.b.0`), or undefined. Keys count too. Walked with
 * a stack of its own, so no nesting depth a JSON parser accepts can overflow it.
 */
export function findUnstorable(value: unknown): string | undefined {
  interface Step {
    value: unknown;
    key?: string | number;
    parent?: Step;
  }
  const pathOf = (step: Step | undefined, last?: string): string => {
    const keys: (string | number)[] = last === undefined ? [] : [last];
    for (let at = step; at?.key !== undefined; at = at.parent) keys.unshift(at.key);
    return keys.join('.') || 'body';
  };
  const pending: Step[] = [{ value }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const current = step.value;
    if (typeof current === 'string') {
      if (isUnstorableText(current)) return pathOf(step);
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) pending.push({ value: current[index], key: index, parent: step });
    } else if (typeof current === 'object' && current !== null) {
      const entries: [string, unknown][] = Object.entries(current);
      for (const [key] of entries) if (isUnstorableText(key)) return pathOf(step, key);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index] ?? ['', undefined];
        pending.push({ value: child, key, parent: step });
      }
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
