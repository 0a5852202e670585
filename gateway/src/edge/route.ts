import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { ApiError, isRouteMatch, matchRoute, type RouteMatch } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import type { Identity } from '../domain/identity.ts';
import { hasScopes } from '../domain/scopes.ts';
import { ROUTE_LOCAL } from './request-log.ts';

/**
 * Steps 4 and 5 of record 0255: the contract route the request names (a known path with another
 * method is no route either: 404 `no_such_route`), then the key's scopes (403
 * `key_out_of_scope`), then its environment (a live key on a test-only route is 403
 * `live_key_test_resource`).
 */
export function routeOf(req: Request, res: Response, identity: Identity): RouteMatch {
  const match = matchRoute(req.method, req.originalUrl);
  if (!isRouteMatch(match)) throw new ApiError('no_such_route', { message: `No route ${req.method} ${req.path}.` });
  const { entry } = match;
  res.locals[ROUTE_LOCAL] = entry;
  // The request's span and HTTP metrics are named by the contract route, not the edge's catch-all.
  const rpc = getRPCMetadata(context.active());
  if (rpc?.type === RPCType.HTTP) rpc.route = entry.route.path;
  trace.getActiveSpan()?.updateName(`${req.method} ${entry.route.path}`);

  if (!hasScopes(identity.scopes, entry.metadata.scopes)) {
    throw new ApiError('key_out_of_scope', {
      message: `This API key lacks the scope this request needs: ${entry.metadata.scopes.join(', ')}.`,
    });
  }
  if (entry.metadata.testOnly && identity.environment !== 'test') throw new ApiError('live_key_test_resource');
  return match;
}
