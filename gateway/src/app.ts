import { CURRENT_SERVICE_VERSION, buildOpenApiDocument } from '@connectivity/contracts';
import { accessLog, createCursorCodec, defaultResponseHeaders, errorHandler, healthRoutes, requestId, resolveCursorSecret, type ServiceRuntime } from '@connectivity/platform';
import express, { type Express, type RequestHandler } from 'express';
import type { Config } from './config.ts';
import { createForwarder, type Forwarder } from './clients/forwarder.ts';
import { createEdgeState, type EdgeState } from './edge/edge-state.ts';
import { applyAddressLimit, edgePipeline, type PipelineDeps } from './routes/edge-pipeline.ts';
import { ResponseCache } from './domain/response-cache.ts';
import { docsRoutes } from './routes/docs.ts';
import { errorPageRoutes } from './routes/error-pages.ts';

export interface AppDeps extends ServiceRuntime {
  config: Config;
  /**
   * The edge's in-process state (key cache, key use, rate limiter). Made from the config unless
   * given; either way it is on `app.locals.edge`, for its owner to stop.
   */
  edge?: EdgeState;
  /** Replaces the HTTP forwarder (the embedded runner may route in process). */
  forwarder?: Forwarder;
}

/**
 * The public edge. Every response carries `Request-Id`, `Service-Version` and the rate-limit
 * headers; health probes and the API reference are the only paths without a key.
 */
export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const baseUrl = config.PUBLIC_BASE_URL;
  const edge = deps.edge ?? createEdgeState(deps, config);
  const pipelineDeps: PipelineDeps = {
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
    cursors: createCursorCodec(resolveCursorSecret(config)),
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    timetable: config.SERVICE_VERSION_TIMETABLE,
    deprecationLink: `${baseUrl.replace(/\/+$/, '')}/docs`,
    idempotency: { retentionMs: config.IDEMPOTENCY_TTL_SECONDS * 1000 },
  };

  const app = express();
  app.disable('x-powered-by');
  // Behind a proxy (an ingress), the client's address is taken from X-Forwarded-For as far as
  // the configured hops or addresses are trusted; the address budgets count per client.
  app.set('trust proxy', config.TRUST_PROXY);
  // Read by `listen` to answer malformed requests with the error object.
  app.locals.baseUrl = baseUrl;
  app.locals.edge = edge;
  // Conditional GETs would turn API responses into bodiless 304s; clients expect JSON.
  app.set('etag', false);
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

  // No key needed: the machine-readable spec and the reference rendered from it.
  const publicLimit: RequestHandler = async (req, res, next) => {
    try {
      await applyAddressLimit(pipelineDeps, req, res, 'docs');
      next();
    } catch (error) {
      next(error);
    }
  };
  let openApi: unknown;
  app.get('/v1/openapi.json', publicLimit, (_req, res) => {
    openApi ??= buildOpenApiDocument({ serverUrl: baseUrl });
    res.json(openApi);
  });
  app.use(docsRoutes(publicLimit));
  app.use(errorPageRoutes(publicLimit, baseUrl));

  app.use(edgePipeline(pipelineDeps));
  app.use(errorHandler({ baseUrl, logger }));
  return app;
}
