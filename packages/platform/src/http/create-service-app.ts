import express, { type Express, type Request } from 'express';
import { ConfigError } from '../config.ts';
import type { Knex } from 'knex';
import { idempotencyStore } from '../idempotency/store.ts';
import { IDEMPOTENCY_TABLE } from '../idempotency/migration.ts';
import { idempotentRequests, type AnswerSealer } from '../idempotency/requests.ts';
import type { Logger } from '../logger.ts';
import { metricsHandler } from '../telemetry/start.ts';
import { errorHandler, noSuchRoute } from './error-handler.ts';
import { healthRoutes, type ReadinessCheck } from './health.ts';
import { requireMetricsToken } from './metrics-auth.ts';
import { readCaller, requireInternalToken, type InternalCallers } from './internal-auth.ts';
import { accessLog } from './access-log.ts';
import { requestId } from './request-id.ts';
import { refuseUnstorableInput } from './unstorable-input.ts';
import { sendJsonAsBytes } from './json-as-bytes.ts';

/** The largest request body accepted anywhere (record 0255). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Idempotency records are kept 24 hours (record 0255). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;
/** A claim whose holder died is taken over after this; the holder renews it while it works. */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 10_000;

export interface ServiceAppOptions {
  logger: Logger;
  /** Public base URL, for error links. */
  baseUrl: string;
  internalToken: string;
  /**
   * The callers this service admits, by the digest of their credentials (`INTERNAL_CALLERS`);
   * unset: `internalToken` is every caller's (one process tree sharing one token).
   */
  internalCallers?: InternalCallers | undefined;
  /**
   * `/metrics` asks for this bearer token (Prometheus' own, `METRICS_TOKEN`); unset, it answers
   * anyone who reaches the listener.
   */
  metricsToken?: string | undefined;
  /** Production: a service refuses to start without `internalCallers` (one credential per caller). */
  production?: boolean;
  checks: Record<string, ReadinessCheck>;
  /**
   * The service changes state on behalf of API keys: it keeps idempotency records in
   * `<schema>.idempotency_records` (see `idempotencyMigration`), written with each change.
   */
  idempotency?: { knex: Knex; schema: string; leaseMs?: number; retentionMs?: number; sealer?: AnswerSealer };
  /** Mounts the service's own routes; they run after the internal token and identity checks. */
  routes(app: Express): void;
}

/**
 * The frame every internal service shares, so a person who knows one service knows all:
 * request id, access log, health, internal auth, identity, JSON body, routes, then the one
 * error renderer.
 */
export function createServiceApp(options: ServiceAppOptions): Express {
  if (options.production && !options.internalCallers) {
    throw new ConfigError('INTERNAL_CALLERS is required in production: each caller has a credential of its own, each route admits its callers.');
  }
  const app = express();
  app.disable('x-powered-by');
  // A service answers the gateway, which passes no ETag on (nor makes one), so hashing every body
  // for one would be work for nothing (docs/decisions/0020-services-make-no-etag.md).
  app.set('etag', false);
  sendJsonAsBytes(app);
  // Read by `listen` to answer malformed requests with the error object.
  app.locals.baseUrl = options.baseUrl;
  app.use(requestId({ trustHeader: true }));
  app.use(accessLog(options.logger));
  app.use(healthRoutes(options.checks));
  // Prometheus scrapes every service here (internal listeners only; the gateway's is on its admin listener).
  app.get('/metrics', requireMetricsToken(options.metricsToken), (req, res) => metricsHandler(req, res));
  app.use(requireInternalToken({ token: options.internalToken, callers: options.internalCallers }));
  // Each route then admits the callers its contract names (ts-rest.ts, `admitCallers`).
  app.locals.admitsInternalCallers = true;
  app.use(readCaller);
  app.use(
    express.json({
      limit: MAX_BODY_BYTES,
      strict: false,
      // The raw bytes are what idempotency fingerprints, as the gateway does.
      verify: (req, _res, buf) => {
        (req as Request & { rawBody?: Buffer }).rawBody = buf;
      },
    }),
  );
  app.use(refuseUnstorableInput);
  if (options.idempotency) {
    const { knex, schema } = options.idempotency;
    app.use(
      idempotentRequests({
        db: knex,
        store: idempotencyStore(`${schema}.${IDEMPOTENCY_TABLE}`),
        leaseMs: options.idempotency.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS,
        retentionMs: options.idempotency.retentionMs ?? IDEMPOTENCY_RETENTION_MS,
        baseUrl: options.baseUrl,
        logger: options.logger,
        sealer: options.idempotency.sealer,
      }),
    );
  }
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
  config: {
    NODE_ENV?: string;
    PUBLIC_BASE_URL: string;
    INTERNAL_TOKEN?: string | undefined;
    INTERNAL_CALLERS?: InternalCallers | undefined;
    METRICS_TOKEN?: string | undefined;
  };
}): Omit<ServiceAppOptions, 'routes'> {
  return {
    logger: deps.logger,
    baseUrl: deps.config.PUBLIC_BASE_URL,
    // An unset token (never in a started service: loadServiceConfig fills it) matches no caller.
    internalToken: deps.config.INTERNAL_TOKEN ?? '',
    internalCallers: deps.config.INTERNAL_CALLERS,
    metricsToken: deps.config.METRICS_TOKEN,
    production: deps.config.NODE_ENV === 'production',
    checks: { database: () => deps.db.ping(), bus: () => deps.bus.ping() },
  };
}
