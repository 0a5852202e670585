import { IDEMPOTENCY_TABLE, idempotencyStore, startIdempotencyPurge, type ServiceDefinition } from '@connectivity/platform';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations, SCHEMA } from './db/migrations/index.ts';
import { startDeliveryWorker } from './delivery/delivery-worker.ts';
import { systemResolveHost, type ResolveHost } from './delivery/public-host.ts';
import { startEventConsumer } from './events/event-consumer.ts';
import { createSecretBox } from './secrets/secret-box.ts';
import { listenForStreamGrowth } from './stream/stream-notices.ts';
import { prepareSealedSecrets } from './secrets/prepare-sealed-secrets.ts';

/** Test hooks beyond the runtime: a DNS stand-in. */
export interface NotificationsOptions {
  resolveHost?: ResolveHost;
}

/**
 * notifications: the HTTP app, the durable event consumer and the delivery worker. Stopping
 * ends the consumer first (nothing new is queued), then lets the worker record the attempts
 * under way; pending work stays in the database for the next instance.
 */
export function createNotificationsService(options: NotificationsOptions = {}): ServiceDefinition<Config> {
  return {
    name: 'notifications',
    migrations,
    loadConfig,
    async start(runtime, config) {
      const resolveHost = options.resolveHost ?? systemResolveHost;
      const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEY_PREVIOUS);
      await prepareSealedSecrets(runtime.db.knex, secrets, runtime.logger);
      const worker = startDeliveryWorker({
        db: runtime.db,
        logger: runtime.logger,
        policy: {
          scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_MS,
          jitter: config.WEBHOOK_RETRY_JITTER,
          maxRetryAfterMs: config.WEBHOOK_MAX_RETRY_AFTER_MS,
        },
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        leaseMs: config.DELIVERY_LEASE_MS,
        pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
        batchSize: config.DELIVERY_BATCH_SIZE,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
        resolveHost,
        secrets,
        retention: {
          keepMs: config.EVENT_RETENTION_MS,
          intervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
          batchSize: config.RETENTION_BATCH_SIZE,
        },
      });
      let consumer;
      try {
        consumer = await startEventConsumer({
          bus: runtime.bus,
          db: runtime.db,
          logger: runtime.logger,
          maxDeliver: config.EVENT_MAX_DELIVER,
          backoffMs: config.EVENT_REDELIVERY_BACKOFF_MS,
        });
      } catch (err) {
        await worker.stop();
        throw err;
      }
      // Without it the streams still see every event, at their safety poll.
      const notices = await listenForStreamGrowth(runtime.bus).catch((error: unknown) => {
        runtime.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'listening for stream notices failed; streams poll');
        return undefined;
      });
      const purge = startIdempotencyPurge({ knex: runtime.db.knex, store: idempotencyStore(`${SCHEMA}.${IDEMPOTENCY_TABLE}`), logger: runtime.logger });
      const app = createApp({ ...runtime, config, resolveHost, secrets });
      return {
        app,
        async stop() {
          await consumer.stop();
          await notices?.stop();
          await worker.stop();
          await purge.stop();
        },
      };
    },
  };
}

export const notificationsService: ServiceDefinition<Config> = createNotificationsService();
