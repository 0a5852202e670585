import { ApiError, INTERNAL_HEADERS, apiErrorFromZod, callersOf } from '@connectivity/contracts';
import type { RequestValidationError } from '@ts-rest/express';
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { NextFunction, Request, Response } from 'express';
import { EVERY_CALLER, internalCallerOf } from './internal-auth.ts';

/**
 * ts-rest's request validation failures, rendered as the catalogue's errors. Order matches the
 * gateway's (path, headers, query, body), so a request that got past the gateway and still
 * fails here is reported the same way.
 */
// The request and response are typed `unknown` so the handler fits every route's typed request.
export function requestValidationErrorHandler(err: RequestValidationError, _req: unknown, _res: unknown, next: NextFunction): void {
  const failure =
    (err.pathParams && apiErrorFromZod(err.pathParams, 'path')) ||
    (err.headers && apiErrorFromZod(err.headers, 'headers')) ||
    (err.query && apiErrorFromZod(err.query, 'query')) ||
    (err.body && apiErrorFromZod(err.body, 'body')) ||
    new ApiError('invalid_parameter');
  next(failure);
}

/**
 * Names the request's span and HTTP metrics by the matched contract route (`http.route`), as
 * the express instrumentation did, without its patching of every middleware layer.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const nameRoute = (req: any, _res: unknown, next: NextFunction): void => {
  const rpc = getRPCMetadata(context.active());
  const route = (req as Request).route as { path?: unknown } | undefined;
  if (rpc?.type === RPCType.HTTP && typeof route?.path === 'string') rpc.route = route.path;
  next();
};

/**
 * In a service (`createServiceApp`), a route admits only the callers its contract names
 * (`callersOf`: a public route the gateway's forward, an internal one its router's `callers`):
 * another caller's valid credential is refused, so inventory's token buys nothing at the
 * vendor but what inventory asks for, and only the admin listener's sets a balance
 * (docs/decisions/0222-internal-calls-with-a-credential-per-caller.md). The gateway's own apps
 * (its meta routes, the admin API) take no internal credential: the check is the service frame's.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const admitCallers = (req: any, res: unknown, next: NextFunction): void => {
  const request = req as Request & { tsRestRoute?: { metadata?: unknown } };
  if (request.app.locals.admitsInternalCallers !== true) {
    next();
    return;
  }
  const caller = internalCallerOf(res as Response);
  const admitted = caller === EVERY_CALLER || (caller !== undefined && (callersOf(request.tsRestRoute) as readonly string[]).includes(caller));
  next(admitted ? undefined : new ApiError('key_out_of_scope', { message: 'This route does not admit this caller.' }));
};

export const tsRestOptions = { requestValidationErrorHandler, globalMiddleware: [nameRoute, admitCallers] };

/**
 * For the operator's internal routes (the admin API's calls): they take the internal token
 * alone, and a call that carries a caller's identity (one made for an API key) does not reach
 * them at all, so no public input steered into an internal call can get there.
 */
// `any` for the request: the middleware fits every route's typed request.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const operatorOnly = (req: any, _res: unknown, next: NextFunction): void => {
  const get = (name: string) => (req as Request).get(name);
  const forCaller = get(INTERNAL_HEADERS.accountId) ?? get(INTERNAL_HEADERS.environment) ?? get(INTERNAL_HEADERS.keyId);
  next(forCaller === undefined ? undefined : new ApiError('no_such_route', { message: 'No such route.' }));
};

export const operatorRouteOptions = { ...tsRestOptions, globalMiddleware: [nameRoute, admitCallers, operatorOnly] };

/**
 * For routes that act for no account (a supplier's callback, verified by the service): the
 * internal token and a request id (`internalSystemHeadersSchema`), no caller. A call made for an
 * API key does not reach them, as with the operator's routes. The internal client calls them by
 * leaving out `identity`.
 */
export const systemRouteOptions = operatorRouteOptions;
