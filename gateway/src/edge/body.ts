import { ApiError, isApiError } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import type { Identity } from '../domain/identity.ts';
import { readRawBody } from '../use-cases/read-body.ts';
import type { EdgeDeps } from './deps.ts';

/** The body of a GET, which is never read: one empty buffer for them all. */
export const NO_BODY: Buffer = Buffer.alloc(0);

/**
 * The body within its deadline, as one of the key's capped reads (record 0201); a read refused by
 * the cap says when to try again, as every 429 does.
 */
export async function readBody(deps: Pick<EdgeDeps, 'edge' | 'bodyDeadline'>, req: Request, res: Response, identity: Identity): Promise<Buffer> {
  try {
    return await deps.edge.bodyReads.during(identity.keyId, () => readRawBody(req, undefined, deps.bodyDeadline));
  } catch (error) {
    if (isApiError(error) && error.code === 'rate_limited') {
      res.setHeader('Retry-After', '1');
      // The body is not read: the connection closes after the answer rather than carry it.
      res.setHeader('Connection', 'close');
    }
    throw error;
  }
}

/**
 * Step 6 of record 0255: the JSON body as an object, or undefined when there is none. A body that
 * does not parse, or parses to something other than an object (an array, a string, null), is 400
 * `body_not_json`.
 */
export function parseJsonObject(raw: Buffer): Record<string, unknown> | undefined {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('body_not_json', { message: 'The request body is not valid JSON.' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError('body_not_json', { message: 'The request body must be a JSON object.' });
  }
  return parsed as Record<string, unknown>;
}
