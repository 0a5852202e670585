import { randomBytes } from 'node:crypto';
import {
  buildService,
  startIdempotencyPurge,
  startOutboxRelay,
  type ServiceDefinition,
  type ServiceRuntime,
  type StartedService,
} from '@connectivity/platform';
import { startAdminListener } from './workers/admin-listener.ts';
import { createApp } from './app.ts';
import { createEdgeState, type EdgeState } from './edge/edge-state.ts';
import { loadConfig, type Config } from './config.ts';
import { gatewayIdempotency } from './db/idempotency-repository.ts';
import { migrations } from './db/migrations/index.ts';
import { SCHEMA } from './db/schema.ts';

/** What the gateway's app and background work share. */
export interface GatewayContext extends ServiceRuntime {
  config: Config;
  edge: EdgeState;
  /** The operator admin API: its token (ADMIN_TOKEN, else a random one) and, once it listens, its URL. */
  admin: { token: string; url: string };
}

/**
 * The gateway as a deployable: the public app; in the background the outbox relay of the
 * `api_key.*` events, the purge of expired idempotency records, the edge's in-process state and
 * the operator admin API on its own listener.
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
    { name: 'edge state', start: ({ edge }) => ({ stop: () => edge.stop() }) },
    { name: 'admin API listener', start: startAdminListener },
  ],
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
