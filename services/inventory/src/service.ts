import { startOutboxRelay, type ServiceDefinition } from '@connectivity/platform';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations, SCHEMA } from './db/migrations/index.ts';
import { startExpirySweeper } from './esims/expiry-sweeper.ts';

/** inventory: the eSIM routes, plus its outbox relay and expiry sweeper in the background. */
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
    const app = createApp({ ...runtime, config, onEvents });
    return Promise.resolve({
      app,
      async stop() {
        await sweeper.stop();
        await relay.stop();
      },
    });
  },
};
