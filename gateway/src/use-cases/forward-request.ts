import type { RouteEntry } from '@connectivity/contracts';
import type { Request } from 'express';
import type { ForwardedResponse, ForwardRequest } from '../clients/forwarder.ts';
import type { AuthenticatedKeyRow } from '../db/keys-repository.ts';
import type { ResponseCache } from '../domain/response-cache.ts';

/**
 * What the owning service is sent: the route's own path, the query as sent, the caller, and the
 * Idempotency-Key as the edge validated it (never read again from the request).
 */
export function forwardRequestOf(
  entry: RouteEntry,
  req: Request,
  key: AuthenticatedKeyRow,
  version: string,
  params: Record<string, string>,
  raw: Buffer | undefined,
  idempotencyKey: string | undefined,
): ForwardRequest {
  const queryStart = req.originalUrl.indexOf('?');
  return {
    entry,
    params,
    search: queryStart === -1 ? '' : req.originalUrl.slice(queryStart + 1),
    body: raw !== undefined && raw.length > 0 ? raw : undefined,
    caller: { accountId: key.account_id, environment: key.environment, keyId: key.id },
    serviceVersion: version,
    idempotencyKey,
    accept: req.get('accept'),
    lastEventId: req.get('last-event-id'),
  };
}

/**
 * A read the owning service marked cacheable is kept at the edge per key and version (see
 * `ResponseCache`); anything else, and a client's `Cache-Control: no-cache`, goes to the service.
 */
export async function readThroughCache(
  responses: ResponseCache,
  req: Request,
  key: AuthenticatedKeyRow,
  version: string,
  forward: () => Promise<ForwardedResponse>,
): Promise<ForwardedResponse> {
  if (req.method !== 'GET' || /\bno-cache\b/i.test(req.get('cache-control') ?? '')) return forward();
  const cacheKey = `${key.id}\n${version}\n${req.get('accept') ?? ''}\n${req.originalUrl}`;
  const hit = responses.get(cacheKey);
  if (hit) return { ...hit.response, headers: { ...hit.response.headers, age: String(hit.ageSeconds) } };
  const response = await forward();
  responses.offer(cacheKey, response);
  return response;
}
