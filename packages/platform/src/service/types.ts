import type { Express } from 'express';
import type { Bus } from '../bus/types.ts';
import type { CommonConfig } from '../config.ts';
import type { Database, MigrationSet } from '../db/types.ts';
import type { InternalCallers } from '../http/internal-auth.ts';
import type { Logger } from '../logger.ts';

/** The real dependencies a service is started with; main.ts and the embedded runner build them. */
export interface ServiceRuntime {
  db: Database;
  bus: Bus;
  logger: Logger;
}

/** Something running that can be told to stop: a poller, a consumer, a listener. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * One piece of a service's background work, declared by name: a bus consumer or a worker on the
 * platform primitives (poller, claims, sweeps). Started after the service's server listens.
 */
export interface BackgroundWork<Context> {
  name: string;
  start(context: Context): Stoppable | Promise<Stoppable>;
}

/**
 * What every deployable exports, so main.ts, the embedded runner and the tests treat them all
 * alike, and so reading `service.ts` tells everything that runs:
 *
 * - `context` builds, once, what the app, the consumers and the workers share (repositories,
 *   clients, policies);
 * - `app` is the HTTP app (never listening: tests drive it with supertest);
 * - `consumers` are the bus handlers and `workers` the background work, started in the order
 *   listed once the server listens, and stopped on SIGTERM after it stopped taking requests:
 *   consumers first (no new work comes in), then workers in the reverse order of the list (a
 *   worker listed first, such as the outbox relay, stops last and publishes what the others
 *   wrote).
 */
export interface ServiceDefinition<C extends ServiceConfig = ServiceConfig, Context = unknown> {
  /**
   * The deployable's name (its logs, traces, metrics and NATS user). The platform names no app:
   * the deployables are listed once, by the launcher (`packages/launcher/src/services.ts`,
   * record 0264).
   */
  name: string;
  migrations: MigrationSet;
  loadConfig(env?: NodeJS.ProcessEnv): C;
  context(runtime: ServiceRuntime, config: C): Context | Promise<Context>;
  app(context: Context): Express;
  consumers?: readonly BackgroundWork<Context>[];
  workers?: readonly BackgroundWork<Context>[];
}

export interface ServiceConfig extends CommonConfig {
  PORT: number;
  HOST: string;
  /** Filled in by loadConfig: the configured token, or in embedded mode a random one. */
  INTERNAL_TOKEN?: string;
  /** The callers this service admits, by their credential's digest (INTERNAL_CALLERS). */
  INTERNAL_CALLERS?: InternalCallers | undefined;
  /** Run migrations at start (always on in embedded mode). */
  MIGRATE_ON_START: boolean;
  IDEMPOTENCY_LEASE_MS: number;
  DATABASE_POOL_MAX: number;
  DRAIN_TIMEOUT_MS: number;
}
