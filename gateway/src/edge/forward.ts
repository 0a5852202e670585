import type { RouteMatch } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import { UpstreamFailure, upstreamError, type ForwardedResponse, type ForwardRequest } from '../clients/forwarder.ts';
import { passStream } from '../clients/pass-stream.ts';
import type { Identity } from '../domain/identity.ts';
import type { ResponseCache } from '../domain/response-cache.ts';
import { setHeaders } from '../use-cases/response-headers.ts';
import type { EdgeDeps } from './deps.ts';

/**
 * Step 10 of record 0255 for a route another service owns: the request goes to it (a read it
 * marked cacheable may be answered from the edge's response cache) and its answer is sent as it
 * came. A replay by the owning service says so itself (`Idempotent-Replayed` is passed on).
 */
export async function forward(
  deps: Pick<EdgeDeps, 'forwarder' | 'responses'>,
  req: Request,
  res: Response,
  identity: Identity,
  version: string,
  match: RouteMatch,
  raw: Buffer,
  idempotencyKey: string | undefined,
): Promise<void> {
  const send = () => deps.forwarder.forward(forwardRequestOf(match, req, identity, version, raw, idempotencyKey));
  let response: ForwardedResponse;
  try {
    response = idempotencyKey === undefined ? await readThroughCache(deps.responses, req, identity, version, send) : await send();
  } catch (error) {
    throw error instanceof UpstreamFailure ? upstreamError(error) : error;
  }
  setHeaders(res, response.headers);
  res.status(response.status).send(response.body);
}

/**
 * A stream (a GET, so no idempotency) passes on as it comes: never cached, no forward timeout.
 * Not async: the pipeline awaits the stream's own promise.
 */
export function passOnStream(
  deps: Pick<EdgeDeps, 'forwarder' | 'edge'>,
  req: Request,
  res: Response,
  identity: Identity,
  version: string,
  match: RouteMatch,
): Promise<void> {
  return passStream({ forwarder: deps.forwarder, streams: deps.edge.streams }, res, forwardRequestOf(match, req, identity, version, undefined, undefined));
}

/**
 * What the owning service is sent: the route's own path, the query as sent, the caller (the
 * identity's own, made once per key), and the Idempotency-Key as the edge validated it (never
 * read again from the request).
 */
function forwardRequestOf(
  { entry, params }: RouteMatch,
  req: Request,
  identity: Identity,
  version: string,
  raw: Buffer | undefined,
  idempotencyKey: string | undefined,
): ForwardRequest {
  const queryStart = req.originalUrl.indexOf('?');
  return {
    entry,
    params,
    search: queryStart === -1 ? '' : req.originalUrl.slice(queryStart + 1),
    body: raw !== undefined && raw.length > 0 ? raw : undefined,
    caller: identity.caller,
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
async function readThroughCache(
  responses: ResponseCache,
  req: Request,
  identity: Identity,
  version: string,
  forward: () => Promise<ForwardedResponse>,
): Promise<ForwardedResponse> {
  if (req.method !== 'GET' || /\bno-cache\b/i.test(req.get('cache-control') ?? '')) return forward();
  const cacheKey = `${identity.keyId}\n${version}\n${req.get('accept') ?? ''}\n${req.originalUrl}`;
  const hit = responses.get(cacheKey);
  if (hit) return { ...hit.response, headers: { ...hit.response.headers, age: String(hit.ageSeconds) } };
  const response = await forward();
  responses.offer(cacheKey, response);
  return response;
}
