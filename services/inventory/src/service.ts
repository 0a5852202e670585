import { startOutboxRelay, type ServiceDefinition } from '@connectivity/platform';
import { catalogueClientFromConfig, createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations, SCHEMA } from './db/migrations/index.ts';
import { startExpirySweeper } from './esims/expiry-sweeper.ts';
import { startSupplierReleaseWorker } from './orders/supplier-release-worker.ts';

/** inventory: the eSIM routes, plus its outbox relay, expiry sweeper and supplier release worker in the background. */
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
    const onEvents = () => relay.wake();
    const sweeper = startExpirySweeper({
      knex: runtime.db.knex,
      logger: runtime.logger,
      intervalMs: config.SWEEPER_INTERVAL_MS,
      batchSize: config.SWEEPER_BATCH_SIZE,
      onEvents,
    });
    const releases = startSupplierReleaseWorker({
      knex: runtime.db.knex,
      catalogue: catalogueClientFromConfig(config),
      logger: runtime.logger,
      intervalMs: config.RELEASE_POLL_INTERVAL_MS,
      retryBaseMs: config.RELEASE_RETRY_BASE_MS,
      retryMaxMs: config.RELEASE_RETRY_MAX_MS,
    });
    const app = createApp({ ...runtime, config, onEvents, onReleaseRecorded: () => releases.wake() });
    return Promise.resolve({
      app,
      async stop() {
        await sweeper.stop();
        await releases.stop();
        await relay.stop();
      },
    });
  },
};
