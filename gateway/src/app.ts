import { ApiError, CURRENT_SERVICE_VERSION } from '@connectivity/contracts';
import {
  accessLog,
  createCursorCodec,
  type ServerTimeouts,
  defaultResponseHeaders,
  errorHandler,
  healthRoutes,
  requestId,
  resolveCursorSecret,
  sendJsonAsBytes,
} from '@connectivity/platform';
import express, { type Express, type RequestHandler } from 'express';
import { createForwarder, type Forwarder } from './clients/forwarder.ts';
import { createSupplierCallbacks, type PassCallback } from './clients/supplier-callbacks.ts';
import { ResponseCache } from './domain/response-cache.ts';
import { mountDocs } from './routes/docs.ts';
import type { EdgeDeps } from './edge/deps.ts';
import { edgePipeline } from './edge/pipeline.ts';
import { errorPageRoutes } from './routes/error-pages.ts';
import { mountMetaRoutes } from './routes/meta.ts';
import { supplierHookRoutes } from './routes/supplier-hooks.ts';
import type { GatewayContext } from './context.ts';
import { applyAddressLimit } from './use-cases/rate-limit.ts';

export type AppDeps = Pick<GatewayContext, 'db' | 'bus' | 'logger' | 'config' | 'edge'> & {
  /** Replaces the HTTP forwarder (the embedded runner may route in process). */
  forwarder?: Forwarder;
  /** Replaces the call that passes suppliers' callbacks to catalogue. */
  passCallback?: PassCallback;
};

/**
 * The public edge. Every response carries `Request-Id`, `Service-Version` and the rate-limit
 * headers; health probes, the API reference, the error pages for people and the suppliers'
 * signed callbacks (`/hooks/<vendor>`) are the only paths without a key. The edge state (`deps.edge`) is its owner's: the service's workers keep it.
 */
export function createApp(deps: AppDeps): Express {
  const { config, logger, edge } = deps;
  const baseUrl = config.PUBLIC_BASE_URL;
  const edgeDeps: EdgeDeps = {
    knex: deps.db.knex,
    logger,
    forwarder:
      deps.forwarder ??
      createForwarder({
        serviceUrls: {
          catalogue: config.CATALOGUE_URL,
          inventory: config.INVENTORY_URL,
          'sandbox-simulator': config.SANDBOX_SIMULATOR_URL,
          notifications: config.NOTIFICATIONS_URL,
        },
        internalToken: config.INTERNAL_TOKEN ?? '',
        timeoutMs: config.UPSTREAM_TIMEOUT_MS,
        baseUrl,
        logger,
      }),
    edge,
    responses: new ResponseCache(),
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    timetable: config.SERVICE_VERSION_TIMETABLE,
    deprecationLink: `${baseUrl.replace(/\/+$/, '')}/docs`,
    idempotency: { retentionMs: config.IDEMPOTENCY_TTL_SECONDS * 1000 },
    bodyDeadline: { ms: config.REQUEST_BODY_TIMEOUT_MS },
  };

  const app = express();
  app.disable('x-powered-by');
  // Behind a proxy (an ingress), the client's address is taken from X-Forwarded-For as far as
  // the configured hops or addresses are trusted; the address budgets count per client.
  app.set('trust proxy', config.TRUST_PROXY);
  // Read by `listen` to answer malformed requests with the error object.
  app.locals.baseUrl = baseUrl;
  // Read by `listen`: how long a client may take over its headers, and over its whole request (a
  // backstop past the body deadline, for bodies no route reads; record 0201).
  app.locals.serverTimeouts = {
    headersMs: config.REQUEST_HEADERS_TIMEOUT_MS,
    requestMs: config.REQUEST_HEADERS_TIMEOUT_MS + config.REQUEST_BODY_TIMEOUT_MS + 5_000,
  } satisfies ServerTimeouts;
  // Conditional GETs would turn API responses into bodiless 304s; clients expect JSON.
  app.set('etag', false);
  sendJsonAsBytes(app);
  // The edge makes its own request ids: a client cannot choose the id its logs are filed under.
  app.use(requestId({ trustHeader: false }));
  app.use(accessLog(logger));
  app.use(defaultResponseHeaders);
  app.use((_req, res, next) => {
    // Until the request names or resolves its own version, the newest one answers.
    res.setHeader('Service-Version', CURRENT_SERVICE_VERSION);
    next();
  });
  app.use(healthRoutes({ database: () => deps.db.ping(), bus: () => deps.bus.ping() }));

  // No key needed: the machine-readable spec, the reference rendered from it, the error pages.
  const publicLimit: RequestHandler = async (req, res, next) => {
    try {
      await applyAddressLimit(edgeDeps, req, res, 'docs');
      next();
    } catch (error) {
      next(error);
    }
  };
  mountDocs(app, publicLimit, baseUrl);
  app.use(errorPageRoutes(publicLimit, baseUrl));
  // No key either: the suppliers' callbacks, signed by the vendor.
  app.use(
    supplierHookRoutes({
      edge,
      rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
      perMinute: config.SUPPLIER_HOOK_RATE_LIMIT_PER_MINUTE,
      maxBodyBytes: config.SUPPLIER_HOOK_MAX_BODY_BYTES,
      bodyDeadline: { ms: config.REQUEST_BODY_TIMEOUT_MS },
      passCallback:
        deps.passCallback ??
        createSupplierCallbacks({ catalogueUrl: config.CATALOGUE_URL, internalToken: config.INTERNAL_TOKEN ?? '', timeoutMs: config.UPSTREAM_TIMEOUT_MS }),
    }),
  );

  app.use(edgePipeline(edgeDeps));
  mountMetaRoutes(app, {
    knex: deps.db.knex,
    cursors: createCursorCodec(resolveCursorSecret(config)),
    requestLogRetentionMs: edge.requestLog.retentionMs(),
  });
  // Only a gateway route the edge passed on gets here, and its router answers it: never reached.
  app.use((req, _res, next) => next(new ApiError('no_such_route', { message: `No route ${req.method} ${req.path}.` })));
  app.use(errorHandler({ baseUrl, logger }));
  return app;
}
