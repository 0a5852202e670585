import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { buildService, createLogger, runMigrations, type Database, type Bus, type StartedService } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import type { Express } from 'express';
import { createAccount, gatewayService, loadConfig, migrations, type Config } from '../../src/index.ts';
import type { EdgeState, GatewayContext } from '../../src/context.ts';
import { edgeConsumers, edgeWorkers } from '../../src/service.ts';
import { startUpstream, type Upstream } from './upstream.ts';

export const BASE_URL = 'https://api.example.test';

export interface Harness {
  app: Express;
  db: Database;
  bus: Bus;
  config: Config;
  /** The environment the config was read from, to start more gateway parts alike. */
  env: Record<string, string>;
  upstream: Upstream;
  edge: EdgeState;
  /** Another gateway instance on the same database, bus and rate-limit store (stopped at close). */
  secondInstance(): Promise<Express>;
  /** A fresh account with both keys; `scopes` restricts both. */
  account(): Promise<{ accountId: string; test: string; live: string; testKeyId: string; liveKeyId: string }>;
  close(): Promise<void>;
}

/**
 * The real gateway app on a real database (PostgreSQL when DATABASE_URL is set, PGlite
 * otherwise) and bus, in front of a real HTTP upstream that plays every service.
 */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const db = await createTestDatabase();
  await runMigrations(db.knex, migrations);
  const bus = await createTestBus();
  const upstream = await startUpstream({ db: db.knex, leaseMs: Number(env.IDEMPOTENCY_LEASE_MS ?? 10_000) });
  const configEnv: Record<string, string> = {
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    PUBLIC_BASE_URL: BASE_URL,
    INTERNAL_TOKEN: 'internal-token-for-tests-only',
    CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-characters',
    CATALOGUE_URL: upstream.url,
    INVENTORY_URL: upstream.url,
    SANDBOX_SIMULATOR_URL: upstream.url,
    NOTIFICATIONS_URL: upstream.url,
    UPSTREAM_TIMEOUT_MS: '1500',
    // The shared limiter when the machine has Redis (its keys apart per harness), else this process's.
    ...(process.env.REDIS_URL
      ? { RATE_LIMIT_STORE: 'redis', REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}` }
      : { RATE_LIMIT_STORE: 'memory' }),
    ...env,
  };
  const config = loadConfig(configEnv);
  const instances: StartedService<GatewayContext>[] = [];
  // A gateway instance with the edge's own background work (key changes, key use, request log,
  // rate-limit store); the relay, the purge and the admin API are left to the tests that want them.
  const instance = async (name: string) => {
    const edgeOnly = { ...gatewayService, workers: edgeWorkers, consumers: edgeConsumers };
    const started = await buildService(edgeOnly, { db, bus, logger: createLogger({ name, level: 'silent' }) }, config);
    instances.push(started);
    await started.startBackground();
    // Counted in the shared store from the first request on (not in memory while Redis connects).
    await started.context.edge.rateLimiter.ready();
    return { edge: started.context.edge, app: started.app };
  };
  const { app, edge } = await instance('gateway-test');
  return {
    app,
    db,
    bus,
    config,
    env: configEnv,
    upstream,
    edge,
    secondInstance: async () => (await instance('second')).app,
    async account() {
      const created = await createAccount(db.knex);
      return {
        accountId: created.account.id,
        test: created.test.secret,
        live: created.live.secret,
        testKeyId: created.test.key.id,
        liveKeyId: created.live.key.id,
      };
    },
    async close() {
      for (const running of instances) await running.stop();
      await upstream.close();
      await bus.close();
      await db.close();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

let counter = 0;
/** A unique Idempotency-Key. */
export const idem = () => `idem-${Date.now()}-${(counter += 1)}-${Math.random().toString(36).slice(2)}`;

/** A port nothing listens on (it was free a moment ago). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
