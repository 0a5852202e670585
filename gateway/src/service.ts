import { randomBytes } from 'node:crypto';
import {
  buildService,
  startIdempotencyPurge,
  startOutboxRelay,
  type BackgroundWork,
  type ServiceDefinition,
  type ServiceRuntime,
  type StartedService,
} from '@connectivity/platform';
import { createApp } from './app.ts';
import type { EdgeState, GatewayContext } from './context.ts';
import { loadConfig, type Config } from './config.ts';
import { keyChangeAnnouncer, startKeyChangeListener } from './consumers/key-changes.ts';
import { gatewayIdempotency, keyReservations } from './db/idempotency-repository.ts';
import { KeyCache } from './db/key-cache.ts';
import { KeyUse } from './db/key-use.ts';
import { migrations } from './db/migrations/index.ts';
import { createRateLimiter, rateLimitStoreOf } from './db/rate-limiter.ts';
import { RequestLog } from './db/request-log-buffer.ts';
import { SCHEMA } from './db/schema.ts';
import { OpenStreams } from './domain/open-streams.ts';
import { SpentBudgets } from './domain/spent-budgets.ts';
import { startAdminListener } from './workers/admin-listener.ts';
import { BodyReads } from './domain/body-reads.ts';
import { startKeyUseFlusher } from './workers/key-use-flusher.ts';
import { startRequestLogFlusher } from './workers/request-log-flusher.ts';
import { startRequestLogPurger } from './workers/request-log-purger.ts';

function createEdgeState(runtime: ServiceRuntime, config: Config): EdgeState {
  const { knex } = runtime.db;
  const streams = new OpenStreams();
  // A key whose notice arrives has its open streams closed: a stream must not outlive the right to read it.
  const keys = new KeyCache({ knex, logger: runtime.logger, ttlMs: config.KEY_CACHE_TTL_MS, onChange: (notice) => streams.close(notice.keyIds ?? []) });
  return {
    keys,
    streams,
    keyUse: new KeyUse(knex),
    requestLog: new RequestLog({
      knex,
      logger: runtime.logger,
      keepPerScope: config.REQUEST_LOG_MAX_PER_ACCOUNT,
      retentionMs: config.REQUEST_LOG_RETENTION_HOURS * 3_600_000,
    }),
    rateLimiter: createRateLimiter({
      store: rateLimitStoreOf(config),
      knex,
      redisUrl: config.REDIS_URL,
      keyPrefix: config.REDIS_KEY_PREFIX,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    }),
    spentBudgets: new SpentBudgets(),
    reservations: keyReservations(knex),
    keysChanged: keyChangeAnnouncer(runtime.bus, keys, runtime.logger),
    bodyReads: new BodyReads(config.BODY_READS_PER_KEY),
  };
}

/** The background work of the edge itself: what keeps its in-process state current and written. */
export const edgeWorkers: readonly BackgroundWork<GatewayContext>[] = [
  {
    // The shared counters' connection (Redis), opened now and closed last of the edge's work.
    name: 'rate-limit store',
    start: ({ edge }) => {
      edge.rateLimiter.connect();
      return { stop: () => edge.rateLimiter.close() };
    },
  },
  { name: 'key use flusher', start: ({ edge, logger, config }) => startKeyUseFlusher({ keyUse: edge.keyUse, logger, intervalMs: config.KEY_USE_FLUSH_MS }) },
  {
    name: 'request log flusher',
    start: ({ edge, logger, config }) => startRequestLogFlusher({ requestLog: edge.requestLog, logger, intervalMs: config.REQUEST_LOG_FLUSH_MS }),
  },
  { name: 'request log purger', start: ({ edge, logger }) => startRequestLogPurger({ requestLog: edge.requestLog, logger }) },
];

/** The consumers of the edge: every instance hears the key-change notices. */
export const edgeConsumers: readonly BackgroundWork<GatewayContext>[] = [
  { name: 'key changes', start: ({ bus, logger, edge }) => startKeyChangeListener({ bus, logger, keys: edge.keys }) },
];

/**
 * The gateway as a deployable: the public app; in the background the outbox relay of the
 * `api_key.*` events, the purge of expired idempotency records, the edge's own work, the
 * operator admin API on its own listener, and the key-change listener.
 */
export const gatewayService: ServiceDefinition<Config, GatewayContext> = {
  name: 'gateway',
  migrations,
  loadConfig,
  context: (runtime, config) => ({
    ...runtime,
    config,
    edge: createEdgeState(runtime, config),
    admin: { token: config.ADMIN_TOKEN ?? randomBytes(32).toString('base64url'), url: '' },
  }),
  app: (context) => createApp(context),
  workers: [
    { name: 'outbox relay', start: ({ db, bus, logger }) => startOutboxRelay({ knex: db.knex, bus, schema: SCHEMA, logger }) },
    { name: 'idempotency purge', start: ({ db, logger }) => startIdempotencyPurge({ knex: db.knex, store: gatewayIdempotency, logger }) },
    ...edgeWorkers,
    { name: 'admin API listener', start: startAdminListener },
  ],
  consumers: edgeConsumers,
};

/** A started gateway with its admin API's URL and token (for tests and tools). */
export interface StartedGateway extends StartedService<GatewayContext> {
  adminUrl: string;
  adminToken: string;
}

/** Builds the gateway and starts its background work, admin listener included. */
export async function startGateway(runtime: ServiceRuntime, config: Config): Promise<StartedGateway> {
  const started = await buildService(gatewayService, runtime, config);
  await started.startBackground();
  return { ...started, adminUrl: started.context.admin.url, adminToken: started.context.admin.token };
}
