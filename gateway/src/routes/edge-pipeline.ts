import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { ApiError, isApiError, isRouteMatch, matchRoute, type ServiceVersion } from '@connectivity/contracts';
import { idempotencyOwner, type Caller, type Logger } from '@connectivity/platform';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { UpstreamFailure, upstreamError, type ForwardedResponse, type Forwarder } from '../clients/forwarder.ts';
import { passStream } from '../clients/pass-stream.ts';
import type { AuthenticatedKeyRow } from '../db/keys-repository.ts';
import { requireIdempotencyKey } from '../domain/idempotency-key.ts';
import type { ResponseCache } from '../domain/response-cache.ts';
import { hasScopes } from '../domain/scopes.ts';
import { validateRequest } from '../domain/validate-request.ts';
import { chooseVersion, deprecationHeaders, isServedVersion, type VersionTimetable } from '../domain/versions.ts';
import type { EdgeState } from '../context.ts';
import { checkIdempotencyKey } from '../use-cases/check-idempotency-key.ts';
import { forwardRequestOf, readThroughCache } from '../use-cases/forward-request.ts';
import { logWhenAnswered, ROUTE_LOCAL } from '../use-cases/log-request.ts';
import { pinVersionOnFirstCall } from '../use-cases/pin-version.ts';
import { addressBucket, applyAddressLimit, countRequest, refuseIfLimited, refuseIfSpent } from '../use-cases/rate-limit.ts';
import { parseJsonObject, readRawBody, type BodyDeadline } from '../use-cases/read-body.ts';
import { setHeaders } from '../use-cases/response-headers.ts';

export interface EdgeDeps {
  knex: Knex;
  logger: Logger;
  forwarder: Forwarder;
  edge: EdgeState;
  /** Reads their service marked cacheable, kept for their max-age. */
  responses: ResponseCache;
  rateLimitPerMinute: number;
  timetable: VersionTimetable;
  deprecationLink: string;
  idempotency: { retentionMs: number };
  /** The whole body within this of the read's start (REQUEST_BODY_TIMEOUT_MS, record 0201). */
  bodyDeadline: BodyDeadline;
}

/** Where the edge leaves the version a gateway-owned route is served at, for its router. */
const VERSION_LOCAL = 'serviceVersion';

/** The version the edge chose for this request (a gateway-owned route's router reads it). */
export function servedVersion(res: Response): ServiceVersion {
  const version: unknown = res.locals[VERSION_LOCAL];
  if (typeof version !== 'string' || !isServedVersion(version)) throw new Error('the edge chose no version for this request');
  return version;
}

/**
 * The public edge for every authenticated path, in the order of record 0255: authentication,
 * Service-Version, rate limit, route, scope and environment, JSON body, Idempotency-Key,
 * validation against the contract, idempotency, then the owning service. A route the gateway
 * owns goes on, with the caller (`getCaller`) and the version (`servedVersion`) on the response's
 * locals, to the gateway's own router, mounted after this.
 */
export function edgePipeline(deps: EdgeDeps): RequestHandler {
  return async (req, res, next) => {
    let passOn: boolean;
    try {
      passOn = await handle(deps, req, res);
    } catch (error) {
      next(error);
      return;
    }
    if (passOn) next();
  };
}

/** Answers the request, or resolves true when the gateway's own router is to answer it. */
async function handle(deps: EdgeDeps, req: Request, res: Response): Promise<boolean> {
  // 1. Authentication. A request without a valid key is counted per address, which also
  // throttles anyone guessing keys.
  let key: AuthenticatedKeyRow;
  try {
    // A key not in memory from an address whose budget is spent is refused before the lookup.
    key = await deps.edge.keys.authenticate(req.get('authorization'), () => refuseIfSpent(deps, res, addressBucket(req, 'anonymous')));
  } catch (error) {
    if (isApiError(error) && error.code === 'rate_limited') throw error;
    await applyAddressLimit(deps, req, res);
    throw error;
  }
  logWhenAnswered(deps.edge.requestLog, req, res, key);
  await deps.edge.keyUse.note(key);

  // The request is counted now, per key (with the account's own budget when the operator set
  // one), so a refusal for the version below carries the rate-limit headers too.
  const decision = await countRequest(deps, res, `key:${key.id}`, key.rate_limit_per_minute ?? deps.rateLimitPerMinute);

  // 2. Service-Version: the header, else the account's pin; pinned on the first call.
  const choice = chooseVersion(req.get('service-version'), key.pinned_version);
  if (!choice.ok) throw new ApiError('unsupported_version', { param: 'Service-Version' });
  res.setHeader('Service-Version', choice.version);
  setHeaders(res, deprecationHeaders(deps.timetable[choice.version], deps.deprecationLink));
  if (key.pinned_version === null) await pinVersionOnFirstCall({ knex: deps.knex, keys: deps.edge.keys }, key.account_id, choice.version);

  // 3. Rate limit.
  refuseIfLimited(res, decision, 'key');

  // 4. Route, from the contract's route table; a known path with another method is no route either.
  const match = matchRoute(req.method, req.originalUrl);
  if (!isRouteMatch(match)) throw new ApiError('no_such_route', { message: `No route ${req.method} ${req.path}.` });
  const { entry, params } = match;
  res.locals[ROUTE_LOCAL] = entry;
  // The request's span and HTTP metrics are named by the contract route, not the edge's catch-all.
  const rpc = getRPCMetadata(context.active());
  if (rpc?.type === RPCType.HTTP) rpc.route = entry.route.path;
  trace.getActiveSpan()?.updateName(`${req.method} ${entry.route.path}`);

  // 5. Scope, then environment.
  if (!hasScopes(key.scopes, entry.metadata.scopes)) {
    throw new ApiError('key_out_of_scope', {
      message: `This API key lacks the scope this request needs: ${entry.metadata.scopes.join(', ')}.`,
    });
  }
  if (entry.metadata.testOnly && key.environment !== 'test') throw new ApiError('live_key_test_resource');

  // 6. The body must be a JSON object (when there is one).
  const raw = entry.route.method === 'GET' ? Buffer.alloc(0) : await readBody(deps, req, res, key.id);
  const body = parseJsonObject(raw);

  // 7. Idempotency-Key on mutating routes.
  const idempotencyKey = entry.metadata.idempotent ? requireIdempotencyKey(req.get('idempotency-key')) : undefined;

  // 8. The request against the contract.
  const query = req.query as Record<string, unknown>;
  validateRequest(entry, { params, query, body });

  // A stream (GET, so no idempotency) passes on as it comes: never cached, no forward timeout.
  if (entry.metadata.stream) {
    await passStream(
      { forwarder: deps.forwarder, streams: deps.edge.streams },
      res,
      forwardRequestOf(entry, req, key, choice.version, params, undefined, undefined),
    );
    return false;
  }

  // 9. Idempotency.
  if (idempotencyKey !== undefined) {
    await checkIdempotencyKey(
      deps.edge.reservations,
      { owner: idempotencyOwner(key.account_id, key.environment), idempotencyKey, method: req.method, pathWithQuery: req.originalUrl, body: raw },
      deps.idempotency.retentionMs,
    );
  }

  // 10. The gateway itself (its router answers), or the owning service.
  if (entry.metadata.service === 'gateway') {
    res.locals.caller = { accountId: key.account_id, environment: key.environment, keyId: key.id } satisfies Caller;
    res.locals[VERSION_LOCAL] = choice.version;
    return true;
  }
  const forward = () => deps.forwarder.forward(forwardRequestOf(entry, req, key, choice.version, params, raw, idempotencyKey));
  let response: ForwardedResponse;
  try {
    response = idempotencyKey === undefined ? await readThroughCache(deps.responses, req, key, choice.version, forward) : await forward();
  } catch (error) {
    throw error instanceof UpstreamFailure ? upstreamError(error) : error;
  }
  // A replay by the owning service says so itself (`Idempotent-Replayed` is passed on).
  setHeaders(res, response.headers);
  res.status(response.status).send(response.body);
  return false;
}

/**
 * The body within its deadline, as one of the key's capped reads (record 0201); a read refused by
 * the cap says when to try again, as every 429 does.
 */
async function readBody(deps: EdgeDeps, req: Request, res: Response, keyId: string): Promise<Buffer> {
  try {
    return await deps.edge.bodyReads.during(keyId, () => readRawBody(req, undefined, deps.bodyDeadline));
  } catch (error) {
    if (isApiError(error) && error.code === 'rate_limited') {
      res.setHeader('Retry-After', '1');
      // The body is not read: the connection closes after the answer rather than carry it.
      res.setHeader('Connection', 'close');
    }
    throw error;
  }
}
