import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { ApiError, isApiError, isRouteMatch, matchRoute, type RouteEntry } from '@connectivity/contracts';
import { domainMetrics, type CursorCodec, type Logger } from '@connectivity/platform';
import type { Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { AuthenticatedKeyRow } from '../db/keys-repository.ts';
import { pinVersion } from '../db/accounts-repository.ts';
import { rateLimitHeaders, secondsUntil } from '../domain/rate-limit-headers.ts';
import { hasScopes } from '../domain/scopes.ts';
import { chooseVersion, deprecationHeaders, type VersionTimetable } from '../domain/versions.ts';
import { logWhenAnswered, ROUTE_LOCAL } from '../use-cases/log-request.ts';
import { answerMetaRoute } from './meta.ts';
import { UpstreamFailure, upstreamError, type ForwardedResponse, type Forwarder, type ForwardRequest } from '../clients/forwarder.ts';
import { checkIdempotencyKey, requireIdempotencyKey } from '../use-cases/check-idempotency-key.ts';
import { passStream } from '../clients/pass-stream.ts';
import type { EdgeState } from '../edge/edge-state.ts';
import type { RateLimitDecision } from '../db/rate-limiter.ts';
import type { ResponseCache } from '../domain/response-cache.ts';
import { parseJsonObject, readRawBody } from '../use-cases/read-body.ts';
import { validateRequest } from '../domain/validate-request.ts';

export interface PipelineDeps {
  knex: Knex;
  logger: Logger;
  forwarder: Forwarder;
  edge: EdgeState;
  /** Reads their service marked cacheable, kept for their max-age. */
  responses: ResponseCache;
  cursors: CursorCodec;
  rateLimitPerMinute: number;
  timetable: VersionTimetable;
  deprecationLink: string;
  idempotency: { retentionMs: number };
}

const setHeaders = (res: Response, headers: Record<string, string>) => {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
};

/**
 * Counts a request against a bucket and sets the rate-limit headers; `refuse` then answers 429
 * once the budget is spent. They are two steps so that the headers are on a response the
 * request gets for an earlier reason (DECISIONS.md puts the version check before the limit).
 */
export async function countRequest(deps: PipelineDeps, res: Response, bucket: string, perMinute: number): Promise<RateLimitDecision> {
  const decision = await deps.edge.rateLimiter.consume(bucket, perMinute);
  setHeaders(res, rateLimitHeaders(decision, decision.windowSeconds));
  return decision;
}

export function refuseIfLimited(res: Response, decision: RateLimitDecision, scope: 'key' | 'address'): void {
  if (decision.allowed) return;
  domainMetrics.rateLimitRefused(scope);
  res.setHeader('Retry-After', String(decision.retryAfterSeconds));
  throw new ApiError('rate_limited', {
    message: `Too many requests: ${decision.limit} per minute. Retry after ${decision.retryAfterSeconds} seconds.`,
  });
}

/**
 * The address budgets of requests without a valid key: `anonymous` for the API (a failed
 * authentication), `docs` for the reference and the spec, so a reader of /docs is not refused
 * because someone behind the same address guessed keys.
 */
export type AddressBudget = 'anonymous' | 'docs';

/** The bucket of requests that carry no valid key: counted per client address (see TRUST_PROXY). */
export const addressBucket = (req: Request, budget: AddressBudget) => `${budget === 'docs' ? 'docs' : 'ip'}:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;

/**
 * Counts a request that carries no valid key, per client address, and refuses it once spent. A
 * bucket this instance already saw spent is refused from memory, without counting again.
 */
export async function applyAddressLimit(deps: PipelineDeps, req: Request, res: Response, budget: AddressBudget = 'anonymous'): Promise<void> {
  const bucket = addressBucket(req, budget);
  refuseIfSpent(deps, res, bucket);
  const decision = await countRequest(deps, res, bucket, deps.rateLimitPerMinute);
  if (!decision.allowed) deps.edge.spentBudgets.spent(bucket, decision.retryAfterSeconds * 1000);
  refuseIfLimited(res, decision, 'address');
}

/** 429 at once for an address bucket known to be spent: no counter, no key lookup, no query. */
function refuseIfSpent(deps: PipelineDeps, res: Response, bucket: string): void {
  const ms = deps.edge.spentBudgets.refusedFor(bucket);
  if (ms === undefined) return;
  const resetSeconds = secondsUntil(ms);
  const decision: RateLimitDecision = {
    allowed: false,
    limit: deps.rateLimitPerMinute,
    remaining: 0,
    resetSeconds,
    retryAfterSeconds: resetSeconds,
    windowSeconds: deps.edge.rateLimiter.windowSeconds,
  };
  setHeaders(res, rateLimitHeaders(decision, decision.windowSeconds));
  refuseIfLimited(res, decision, 'address');
}

/**
 * The public edge for every authenticated path, in the order of DECISIONS.md: authentication,
 * Service-Version, rate limit, route, scope and environment, JSON body, Idempotency-Key,
 * validation against the contract, idempotency, then the owning service.
 */
export function edgePipeline(deps: PipelineDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      await handle(deps, req, res);
    } catch (error) {
      next(error);
    }
  };
}

async function handle(deps: PipelineDeps, req: Request, res: Response): Promise<void> {
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
  if (key.pinned_version === null) {
    const pinned = await pinVersion(deps.knex, key.account_id, choice.version);
    deps.edge.keys.patchAccount(key.account_id, { pinned_version: pinned });
  }

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
  const raw = entry.route.method === 'GET' ? Buffer.alloc(0) : await readRawBody(req);
  const body = parseJsonObject(raw);

  // 7. Idempotency-Key on mutating routes.
  const idempotencyKey = entry.metadata.idempotent ? requireIdempotencyKey(req.get('idempotency-key')) : undefined;

  // 8. The request against the contract.
  const query = req.query as Record<string, unknown>;
  validateRequest(entry, { params, query, body });

  // A stream (GET, so no idempotency) passes on as it comes: never cached, no forward timeout.
  if (entry.metadata.stream) {
    await passStream({ forwarder: deps.forwarder, streams: deps.edge.streams }, res, forwardRequest(entry, req, key, choice.version, params));
    return;
  }

  // 9 and 10. Idempotency, then the owning service (or the gateway itself).
  if (idempotencyKey !== undefined) {
    await checkIdempotencyKey(deps.edge.reservations, { keyId: key.id, idempotencyKey, method: req.method, pathWithQuery: req.originalUrl, body: raw }, deps.idempotency.retentionMs);
  }
  const execute = () => respondFor(deps, entry, req, key, choice.version, params, query, raw);
  let response: ForwardedResponse;
  try {
    response = idempotencyKey === undefined ? await cachedRead(deps, req, key, choice.version, execute) : await execute();
  } catch (error) {
    throw error instanceof UpstreamFailure ? upstreamError(error) : error;
  }
  // A replay by the owning service says so itself (`Idempotent-Replayed` is passed on).
  setHeaders(res, response.headers);
  res.status(response.status).send(response.body);
}

/**
 * A read the owning service marked cacheable is kept at the edge per key and version (see
 * `ResponseCache`); anything else goes to the service every time.
 */
async function cachedRead(
  deps: PipelineDeps,
  req: Request,
  key: AuthenticatedKeyRow,
  version: string,
  execute: () => Promise<ForwardedResponse>,
): Promise<ForwardedResponse> {
  if (req.method !== 'GET' || /\bno-cache\b/i.test(req.get('cache-control') ?? '')) return execute();
  const cacheKey = `${key.id}\n${version}\n${req.get('accept') ?? ''}\n${req.originalUrl}`;
  const hit = deps.responses.get(cacheKey);
  if (hit) return { ...hit.response, headers: { ...hit.response.headers, age: String(hit.ageSeconds) } };
  const response = await execute();
  deps.responses.offer(cacheKey, response);
  return response;
}

async function respondFor(
  deps: PipelineDeps,
  entry: RouteEntry,
  req: Request,
  key: AuthenticatedKeyRow,
  version: string,
  params: Record<string, string>,
  query: Record<string, unknown>,
  raw: Buffer,
): Promise<ForwardedResponse> {
  if (entry.metadata.service === 'gateway') {
    const answer = await answerMetaRoute(
      entry.key,
      { accountId: key.account_id, environment: key.environment, version: version as never, params, query },
      { db: deps.knex, cursors: deps.cursors, requestLogRetentionMs: deps.edge.requestLog.retentionMs() },
    );
    return { status: answer.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(answer.body) };
  }
  return deps.forwarder.forward(forwardRequest(entry, req, key, version, params, raw));
}

/** What the owning service is sent: the route's own path, the query as sent, the identity. */
function forwardRequest(entry: RouteEntry, req: Request, key: AuthenticatedKeyRow, version: string, params: Record<string, string>, raw?: Buffer): ForwardRequest {
  const queryStart = req.originalUrl.indexOf('?');
  return {
    entry,
    params,
    search: queryStart === -1 ? '' : req.originalUrl.slice(queryStart + 1),
    body: raw !== undefined && raw.length > 0 ? raw : undefined,
    identity: { accountId: key.account_id, environment: key.environment, keyId: key.id },
    serviceVersion: version,
    idempotencyKey: req.get('idempotency-key'),
    accept: req.get('accept'),
    lastEventId: req.get('last-event-id'),
  };
}
