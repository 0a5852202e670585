import { createServer, type RequestListener, type Server } from 'node:http';
import { busOptionsFrom, createBus } from '../bus/index.ts';
import { ConfigError } from '../config.ts';
import { createDatabase } from '../db/create-database.ts';
import { runMigrations } from '../db/migrate.ts';
import { answerClientErrors } from '../http/client-error.ts';
import { createLogger } from '../logger.ts';
import { traceRequests } from '../telemetry/server-spans.ts';
import { closeServer, trackRequests } from './drain.ts';
import { watchForIdle } from '../memory/idle-release.ts';
import { exitOnSignal } from './shutdown.ts';
import { buildService } from './started-service.ts';
import type { ServiceConfig, ServiceDefinition } from './types.ts';

/**
 * How long a client may take to send a request, set by an app that takes requests from the
 * internet in `locals.serverTimeouts` (the gateway, record 0201); Node's defaults otherwise.
 */
export interface ServerTimeouts {
  /** The request line and headers. */
  headersMs: number;
  /** The whole request, body included: a backstop for bodies the app never reads. */
  requestMs: number;
}

const isServerTimeouts = (value: unknown): value is ServerTimeouts =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ServerTimeouts).headersMs === 'number' &&
  typeof (value as ServerTimeouts).requestMs === 'number';

/**
 * Listens, with a span per request (`traceRequests`), and answers requests Node's HTTP parser
 * refuses with the error object (the app's `locals.baseUrl` makes its link). An app's
 * `locals.serverTimeouts` bound how long a client may take to send its headers and its request.
 * Its requests count for the process's release of memory once idle (record 0269).
 */
export function listen(app: RequestListener & { locals?: Record<string, unknown> }, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const timeouts = app.locals?.serverTimeouts;
    // Node checks its deadlines every 30 s by default: checked each second, a deadline of 10 s
    // is kept within a second.
    const server = isServerTimeouts(timeouts)
      ? createServer({ headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: 1_000 }, traceRequests(app))
      : createServer(traceRequests(app));
    server.listen(port, host);
    const baseUrl = app.locals?.baseUrl;
    answerClientErrors(server, typeof baseUrl === 'string' ? baseUrl : 'http://localhost:8080');
    trackRequests(server);
    watchForIdle(server);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/**
 * main.ts of every deployable: read config, build the real database and bus, migrate if asked,
 * build the service, listen, start its declared background work, and on SIGTERM/SIGINT stop
 * taking requests, stop the background work, then close the bus and the database, so nothing in
 * flight is lost.
 */
export async function runService<C extends ServiceConfig, Context>(definition: ServiceDefinition<C, Context>): Promise<void> {
  const config = definition.loadConfig();
  const logger = createLogger({ name: definition.name, level: config.LOG_LEVEL });
  // A service that admits callers by their own credentials needs a token only for the calls it makes.
  if (!config.INTERNAL_TOKEN && !config.INTERNAL_CALLERS) {
    throw new ConfigError('INTERNAL_TOKEN (or INTERNAL_CALLERS) is required when a service runs as its own process.');
  }
  const db = await createDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DATABASE_POOL_MAX,
    caFile: config.DATABASE_CA_FILE,
    logger,
  });
  if (config.MIGRATE_ON_START || db.kind === 'pglite') await runMigrations(db.knex, definition.migrations);
  const bus = await createBus(busOptionsFrom(config, definition.name));
  const started = await buildService(definition, { db, bus, logger }, config);
  const server = await listen(started.app, config.PORT, config.HOST);
  await started.startBackground();
  logger.info({ port: config.PORT, database: db.kind, bus: bus.kind }, `${definition.name} listening`);

  exitOnSignal(logger, async () => {
    // Not ready from now on; in-flight requests finish (each closing its connection), then the
    // consumers and workers stop (finishing what they claimed), then the bus and the database close.
    await closeServer(server, config.DRAIN_TIMEOUT_MS);
    await started.stop();
    await bus.close();
    await db.close();
  });
}
