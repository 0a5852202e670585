import type { AppRoute } from '@ts-rest/core';
import type { ErrorCode } from '../errors/catalogue.ts';
import type { Scope } from '../schemas/enums.ts';

export const SERVICES = ['gateway', 'catalogue', 'inventory', 'sandbox-simulator', 'notifications'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** What the gateway needs to know about a public route besides its shape. */
export type RouteMetadata = {
  /** The service that owns and answers the route. */
  service: ServiceName;
  /** Scopes the key must hold (all of them); meta endpoints need none. */
  scopes: readonly Scope[];
  /** False only for GET /v1/openapi.json. */
  auth: boolean;
  /** The /v1/test/* helpers: test keys only (a live key gets 403 live_key_test_resource). */
  testOnly?: true;
  /** True for every mutating route: it needs `Idempotency-Key` and its responses are stored. */
  idempotent: boolean;
  /** Error codes the route documents, in catalogue order (the standard ones included). */
  errors: readonly ErrorCode[];
  /**
   * The media types of a success answer that is not JSON, the default first; the service picks one
   * by the request's `Accept`, which the gateway passes on for such a route only.
   */
  produces?: readonly string[];
  /**
   * The success answer is a long-lived stream (Server-Sent Events): the gateway passes it on as it
   * comes, never caches it, and no forward timeout ends it.
   */
  stream?: true;
};

export function routeMetadata(route: AppRoute): RouteMetadata {
  if (route.metadata === undefined) throw new Error(`Route ${route.method} ${route.path} has no metadata`);
  return route.metadata as RouteMetadata;
}
