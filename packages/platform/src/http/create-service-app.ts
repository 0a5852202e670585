import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.ts';
import { errorHandler, noSuchRoute } from './error-handler.ts';
import { healthRoutes, type ReadinessCheck } from './health.ts';
import { readIdentity, requireInternalToken } from './internal-auth.ts';
import { requestId } from './request-id.ts';

/** The largest request body accepted anywhere (DECISIONS.md "Limits not shown"). */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface ServiceAppOptions {
  logger: Logger;
  /** Public base URL, for error links. */
  baseUrl: string;
  internalToken: string;
  checks: Record<string, ReadinessCheck>;
  /** Mounts the service's own routes; they run after the internal token and identity checks. */
  routes(app: Express): void;
}

/**
 * The frame every internal service shares, so a person who knows one service knows all:
 * request id, access log, health, internal auth, identity, JSON body, routes, then the one
 * error renderer.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId({ trustHeader: true }));
  app.use(
    pinoHttp({
      logger: options.logger,
      genReqId: (_req, res) => String(res.locals?.requestId ?? ''),
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      serializers: { req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }) },
    }),
  );
  app.use(healthRoutes(options.checks));
  app.use(requireInternalToken(options.internalToken));
  app.use(readIdentity);
  app.use(express.json({ limit: MAX_BODY_BYTES, strict: false }));
  options.routes(app);
  app.use(noSuchRoute);
  app.use(errorHandler({ baseUrl: options.baseUrl, logger: options.logger }));
  return app;
}

/** What every service passes to `createServiceApp` from its runtime and config. */
export function serviceFrame(deps: {
  db: { ping(): Promise<void> };
  bus: { ping(): Promise<void> };
  logger: Logger;
  config: { PUBLIC_BASE_URL: string; INTERNAL_TOKEN?: string | undefined };
}): Omit<ServiceAppOptions, 'routes'> {
  return {
    logger: deps.logger,
    baseUrl: deps.config.PUBLIC_BASE_URL,
    // An unset token (never in a started service: loadServiceConfig fills it) matches no caller.
    internalToken: deps.config.INTERNAL_TOKEN ?? '',
    checks: { database: () => deps.db.ping(), bus: () => deps.bus.ping() },
  };
}
