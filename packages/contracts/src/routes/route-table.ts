import { isAppRoute } from '@ts-rest/core';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import { contract } from './contract.ts';
import type { RouteGroup } from './contract.ts';
import { routeMetadata } from './metadata.ts';
import type { RouteMetadata } from './metadata.ts';

export type RouteEntry = {
  /** The route's unique key, also its operationId, e.g. `getEsim`. */
  key: string;
  group: RouteGroup;
  route: AppRoute;
  metadata: RouteMetadata;
};

function flatten(router: AppRouter, group: RouteGroup): RouteEntry[] {
  return Object.entries(router).flatMap(([key, value]) =>
    isAppRoute(value) ? [{ key, group, route: value, metadata: routeMetadata(value) }] : flatten(value, group),
  );
}

/** Every public route, flat, in contract order. */
export const routeTable: readonly RouteEntry[] = (Object.keys(contract) as RouteGroup[]).flatMap((group) => flatten(contract[group], group));

export type RouteMatch = { entry: RouteEntry; params: Record<string, string> };
export type RouteMiss = { pathKnown: boolean; allowedMethods: string[] };

type Pattern = { segments: string[]; specificity: string; entries: RouteEntry[] };

// One pattern per path; `specificity` marks each segment static (0) or parameter (1), so among the patterns
// that match a path the smallest one wins: `/v1/esim/bundles` is never read as `/v1/esim/:id`.
const patterns: Pattern[] = [...Map.groupBy(routeTable, (entry) => entry.route.path).entries()].map(([path, entries]) => {
  const segments = path.split('/');
  return { segments, specificity: segments.map((s) => (s.startsWith(':') ? '1' : '0')).join(''), entries };
});

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of pattern.entries()) {
    const value = actual[i] ?? '';
    if (segment.startsWith(':')) {
      if (value === '') return undefined;
      params[segment.slice(1)] = value;
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
}

/**
 * Finds the public route for a request. A miss tells whether the path exists with other methods;
 * both kinds of miss are 404 `no_such_route`. `path` may carry a query string; parameters are URL-decoded.
 */
export function matchRoute(method: string, path: string): RouteMatch | RouteMiss {
  const segments = (path.split('?')[0] ?? '').split('/');
  let decoded: string[];
  try {
    decoded = segments.map((segment) => decodeURIComponent(segment));
  } catch {
    return { pathKnown: false, allowedMethods: [] };
  }
  let best: { pattern: Pattern; params: Record<string, string> } | undefined;
  for (const pattern of patterns) {
    const params = matchSegments(pattern.segments, decoded);
    if (params !== undefined && (best === undefined || pattern.specificity < best.pattern.specificity)) best = { pattern, params };
  }
  if (best === undefined) return { pathKnown: false, allowedMethods: [] };
  const entry = best.pattern.entries.find((candidate) => candidate.route.method === method.toUpperCase());
  if (entry !== undefined) return { entry, params: best.params };
  return { pathKnown: true, allowedMethods: best.pattern.entries.map((candidate) => candidate.route.method) };
}

export function isRouteMatch(result: RouteMatch | RouteMiss): result is RouteMatch {
  return 'entry' in result;
}

export function routeByKey(key: string): RouteEntry | undefined {
  return routeTable.find((entry) => entry.key === key);
}
