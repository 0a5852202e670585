import { IDEMPOTENCY_TABLE, idempotencyStore, startIdempotencyPurge, startOutboxRelay, type ServiceDefinition } from '@connectivity/platform';
import { catalogueClientFromConfig, createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations, SCHEMA } from './db/migrations/index.ts';
import { startExpirySweeper } from './esims/expiry-sweeper.ts';
import { startSupplierReleaseWorker } from './orders/supplier-release-worker.ts';

/** inventory: the eSIM routes, plus in the background its outbox relay, expiry sweeper, supplier release worker and idempotency purge. */
export const inventoryService: ServiceDefinition<Config> = {
  name: 'inventory',
  migrations,
  loadConfig,
  start(runtime, config) {
    const relay = startOutboxRelay({
      knex: runtime.db.knex,
      bus: runtime.bus,
      schema: SCHEMA,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      logger: runtime.logger,
    });
    const sweeper = startExpirySweeper({
      knex: runtime.db.knex,
      logger: runtime.logger,
      intervalMs: config.SWEEPER_INTERVAL_MS,
      batchSize: config.SWEEPER_BATCH_SIZE,
    });
    const releases = startSupplierReleaseWorker({
      knex: runtime.db.knex,
      catalogue: catalogueClientFromConfig(config, runtime.logger),
      logger: runtime.logger,
      intervalMs: config.RELEASE_POLL_INTERVAL_MS,
      retryBaseMs: config.RELEASE_RETRY_BASE_MS,
      retryMaxMs: config.RELEASE_RETRY_MAX_MS,
    });
    const purge = startIdempotencyPurge({ knex: runtime.db.knex, store: idempotencyStore(`${SCHEMA}.${IDEMPOTENCY_TABLE}`), logger: runtime.logger });
    const app = createApp({ ...runtime, config });
    return Promise.resolve({
      app,
      async stop() {
        await sweeper.stop();
        await releases.stop();
        await purge.stop();
        await relay.stop();
      },
    });
  },
};
