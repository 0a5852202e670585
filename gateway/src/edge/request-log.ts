import type { RouteEntry } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import type { RequestLog } from '../db/request-log-buffer.ts';
import type { Identity } from '../domain/identity.ts';

/** Where the route step leaves the matched contract route for the log (and nothing else). */
export const ROUTE_LOCAL = 'contractRoute';

// Paths are the client's; a pathological one is cut rather than stored whole.
const MAX_PATH = 512;

// `/v1/esim/:id` is shown as OpenAPI writes it, `/v1/esim/{id}`, the form the docs use.
const templates = new Map<string, string>();
function template(path: string): string {
  let shown = templates.get(path);
  if (shown === undefined) {
    shown = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    templates.set(path, shown);
  }
  return shown;
}

/**
 * Logs the request of an authenticated key once its answer is sent, whatever the answer (an
 * error too). Reads of the log itself are left out, so following it does not fill it.
 */
export function logWhenAnswered(log: RequestLog, req: Request, res: Response, key: Identity): void {
  const startedAt = Date.now();
  const started = performance.now();
  res.once('finish', () => {
    const entry = res.locals[ROUTE_LOCAL] as RouteEntry | undefined;
    if (entry?.key === 'listRequestLogs') return;
    log.record({
      requestId: String(res.locals.requestId),
      accountId: key.accountId,
      environment: key.environment,
      keyId: key.keyId,
      method: req.method,
      path: req.path.slice(0, MAX_PATH),
      route: entry ? template(entry.route.path) : null,
      status: res.statusCode,
      durationMs: Math.round(performance.now() - started),
      at: new Date(startedAt),
    });
  });
}
