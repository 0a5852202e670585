import { IDEMPOTENCY_TABLE, idempotencyStore, startIdempotencyPurge, startOutboxRelay, type ServiceDefinition } from '@connectivity/platform';
import { createApp, type AppDeps } from './app.ts';
import { createCatalogueClient } from './clients/catalogue-client.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';
import { SCHEMA } from './db/schema.ts';
import { startExpirySweeper } from './workers/expiry-sweeper.ts';
import { startSupplierReleaseWorker } from './workers/supplier-release-worker.ts';

/** inventory: the eSIM routes; in the background its outbox relay, expiry sweeper, supplier releases and idempotency purge. */
export const inventoryService: ServiceDefinition<Config, AppDeps> = {
  name: 'inventory',
  migrations,
  loadConfig,
  context: (runtime, config) => ({
    ...runtime,
    config,
    catalogue: createCatalogueClient({
      baseUrl: config.CATALOGUE_URL,
      internalToken: config.INTERNAL_TOKEN ?? '',
      timeoutMs: config.CATALOGUE_TIMEOUT_MS,
      logger: runtime.logger,
    }),
  }),
  app: createApp,
  workers: [
    {
      name: 'outbox relay',
      start: ({ db, bus, config, logger }) => startOutboxRelay({ knex: db.knex, bus, schema: SCHEMA, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS, logger }),
    },
    {
      name: 'expiry sweeper',
      start: ({ db, config, logger }) => startExpirySweeper({ knex: db.knex, logger, intervalMs: config.SWEEPER_INTERVAL_MS, batchSize: config.SWEEPER_BATCH_SIZE }),
    },
    {
      name: 'supplier releases',
      start: ({ db, catalogue, config, logger }) =>
        startSupplierReleaseWorker({
          knex: db.knex,
          catalogue,
          logger,
          intervalMs: config.RELEASE_POLL_INTERVAL_MS,
          retryBaseMs: config.RELEASE_RETRY_BASE_MS,
          retryMaxMs: config.RELEASE_RETRY_MAX_MS,
        }),
    },
    {
      name: 'idempotency purge',
      start: ({ db, logger }) => startIdempotencyPurge({ knex: db.knex, store: idempotencyStore(`${SCHEMA}.${IDEMPOTENCY_TABLE}`), logger }),
    },
  ],
};
