import { IDEMPOTENCY_TABLE, errorMessage, idempotencyStore, startIdempotencyPurge, type ServiceDefinition, type ServiceRuntime } from '@connectivity/platform';
import { createApp, type AppDeps } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations, SCHEMA } from './db/migrations/index.ts';
import { startDeliveryWorker } from './delivery/delivery-worker.ts';
import { systemResolveHost, type ResolveHost } from './delivery/public-host.ts';
import { startEventConsumer } from './events/event-consumer.ts';
import { createSecretBox, type SecretBox } from './secrets/secret-box.ts';
import { listenForStreamGrowth } from './stream/stream-notices.ts';
import { prepareSealedSecrets } from './secrets/prepare-sealed-secrets.ts';
import { StreamHubs } from './stream/stream-hub.ts';
import { StreamLeases } from './stream/stream-leases.ts';
import { startReplayWorker } from './workers/replay-worker.ts';
import { startStreamLeaseRenewal } from './workers/stream-lease-renewal.ts';

/** Test hooks beyond the runtime: a DNS stand-in. */
export interface NotificationsOptions {
  resolveHost?: ResolveHost;
}

export interface NotificationsContext extends AppDeps {
  resolveHost: ResolveHost;
  secrets: SecretBox;
}

/**
 * notifications: the HTTP app; the durable event consumer and the stream notices it hears; the
 * delivery worker, the replay worker, the open streams' leases and the idempotency purge. Stopping ends the consumers first (nothing new is
 * queued), then lets the worker record the attempts under way; pending work stays in the
 * database for the next instance.
 */
export function createNotificationsService(options: NotificationsOptions = {}): ServiceDefinition<Config, NotificationsContext> {
  return {
    name: 'notifications',
    migrations,
    loadConfig,
    async context(runtime: ServiceRuntime, config: Config) {
      const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEY_PREVIOUS);
      await prepareSealedSecrets(runtime.db.knex, secrets, runtime.logger);
      const streams = {
        hubs: new StreamHubs(runtime.db.knex, { safetyPollMs: config.STREAM_POLL_INTERVAL_MS, logger: runtime.logger }),
        leases: new StreamLeases(runtime.db.knex, { maxPerKey: config.STREAM_MAX_PER_KEY, ttlMs: config.STREAM_LEASE_MS, logger: runtime.logger }),
      };
      return { ...runtime, config, resolveHost: options.resolveHost ?? systemResolveHost, secrets, streams };
    },
    app: createApp,
    workers: [
      {
        name: 'webhook deliveries',
        start: ({ db, logger, config, resolveHost, secrets }) =>
          startDeliveryWorker({
            db,
            logger,
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
            allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
            secrets,
            retention: {
              keepMs: config.EVENT_RETENTION_MS,
              intervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
              batchSize: config.RETENTION_BATCH_SIZE,
            },
          }),
      },
      {
        name: 'event replays',
        start: ({ db, bus, logger, config }) =>
          startReplayWorker({
            db,
            bus,
            logger,
            pollIntervalMs: config.REPLAY_POLL_INTERVAL_MS,
            batchSize: config.REPLAY_BATCH_SIZE,
            maxPendingPerEndpoint: config.WEBHOOK_MAX_PENDING_PER_ENDPOINT,
            waitMs: config.REPLAY_WAIT_MS,
          }),
      },
      {
        name: 'event streams',
        // Open streams were ended by the drain, which released their leases; the hubs stop with the last of them.
        start: ({ db, logger, streams }) => startStreamLeaseRenewal({ knex: db.knex, logger, ...streams }),
      },
      {
        name: 'idempotency purge',
        start: ({ db, logger }) => startIdempotencyPurge({ knex: db.knex, store: idempotencyStore(`${SCHEMA}.${IDEMPOTENCY_TABLE}`), logger }),
      },
    ],
    consumers: [
      {
        name: 'event consumer',
        start: ({ bus, db, logger, config }) => startEventConsumer({ bus, db, logger, maxDeliver: config.EVENT_MAX_DELIVER, backoffMs: config.EVENT_REDELIVERY_BACKOFF_MS }),
      },
      {
        name: 'stream notices',
        // Without them the streams still see every event, at their safety poll.
        start: ({ bus, logger }) =>
          listenForStreamGrowth(bus).catch((error: unknown) => {
            logger.error({ err: errorMessage(error) }, 'listening for stream notices failed; streams poll');
            return { stop: () => Promise.resolve() };
          }),
      },
    ],
  };
}

export const notificationsService: ServiceDefinition<Config, NotificationsContext> = createNotificationsService();
