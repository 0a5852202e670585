import type { Express } from 'express';
import type { Bus } from '../bus/types.ts';
import type { CommonConfig } from '../config.ts';
import type { Database, MigrationSet } from '../db/types.ts';
import type { Logger } from '../logger.ts';

export type ServiceName = 'gateway' | 'catalogue' | 'inventory' | 'sandbox-simulator' | 'notifications';

/** The real dependencies a service is started with; main.ts and the embedded runner build them. */
export interface ServiceRuntime {
  db: Database;
  bus: Bus;
  logger: Logger;
}

/** A started service: its HTTP app (not listening) and a stop for its background workers. */
export interface StartedService {
  app: Express;
  stop(): Promise<void>;
}

/** What every deployable exports, so main.ts and the embedded runner treat them all alike. */
export interface ServiceDefinition<C extends ServiceConfig = ServiceConfig> {
  name: ServiceName;
  migrations: MigrationSet;
  loadConfig(env?: NodeJS.ProcessEnv): C;
  start(runtime: ServiceRuntime, config: C): Promise<StartedService>;
}

export interface ServiceConfig extends CommonConfig {
  PORT: number;
  HOST: string;
  /** Filled in by loadConfig: the configured token, or in embedded mode a random one. */
  INTERNAL_TOKEN?: string;
  /** Run migrations at start (always on in embedded mode). */
  MIGRATE_ON_START: boolean;
  IDEMPOTENCY_LEASE_MS: number;
  DATABASE_POOL_MAX: number;
  DRAIN_TIMEOUT_MS: number;
}
