import { ApiError } from '@connectivity/contracts';
import { MAX_BODY_BYTES } from '@connectivity/platform';
import type { Request } from 'express';

const tooLarge = (limit: number) =>
  new ApiError('invalid_parameter', { param: 'body', message: `The request body is larger than ${limit === MAX_BODY_BYTES ? '1 MiB' : `${limit} bytes`}.` });

/**
 * Reads the raw body, refusing more than `limit` (1 MiB by record 0255) without buffering the excess.
 * The bytes are kept as they came: they are hashed for idempotency and forwarded unchanged.
 * A body over the limit, declared or chunked, leaves the request flowing (Node discards the
 * rest once the answer is sent) rather than destroyed, so the client still reads the 400.
 */
export async function readRawBody(req: Request, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? '0');
  if (declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the request (and with it the socket the answer goes out on).
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON body as an object, or undefined when there is none. A body that does not parse, or
 * parses to something other than an object (an array, a string, null), is 400 `body_not_json`.
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
