import { IDEMPOTENCY_TABLE, idempotencyStore, startIdempotencyPurge, type ServiceDefinition, type ServiceRuntime } from '@connectivity/platform';
import { createApp } from './app.ts';
import type { NotificationsOptions, NotificationsContext } from './context.ts';
import { createResolveHost } from './clients/dns-resolver.ts';
import { loadConfig, type Config } from './config.ts';
import { startEventConsumer } from './consumers/event-consumer.ts';
import { startStreamNoticeListener } from './consumers/stream-notices.ts';
import { migrations } from './db/migrations/index.ts';
import { SCHEMA } from './db/schema.ts';
import { StreamLeases } from './db/stream-leases.ts';
import { createSecretBox } from './domain/secret-box.ts';
import { prepareSealedSecrets } from './use-cases/prepare-sealed-secrets.ts';
import { startDeliveryWorker } from './workers/delivery-worker.ts';
import { startReplayWorker } from './workers/replay-worker.ts';
import { startRetention } from './workers/retention.ts';
import { StreamHubs } from './workers/stream-hub.ts';
import { startStreamLeaseRenewal } from './workers/stream-lease-renewal.ts';

/** The context, built once at start: the secrets are checked (and re-sealed) before anything serves. */
async function createContext(runtime: ServiceRuntime, config: Config, options: NotificationsOptions): Promise<NotificationsContext> {
  const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY, config.WEBHOOK_SECRET_KEY_PREVIOUS);
  await prepareSealedSecrets(runtime.db.knex, secrets, runtime.logger);
  const streams = {
    hubs: new StreamHubs(runtime.db.knex, { safetyPollMs: config.STREAM_POLL_INTERVAL_MS, logger: runtime.logger }),
    leases: new StreamLeases(runtime.db.knex, { maxPerKey: config.STREAM_MAX_PER_KEY, ttlMs: config.STREAM_LEASE_MS, logger: runtime.logger }),
  };
  const resolveHost = options.resolveHost ?? createResolveHost({ timeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS, servers: config.WEBHOOK_DNS_SERVERS });
  return { ...runtime, config, resolveHost, secrets, streams };
}

/**
 * notifications: the HTTP app; the durable event consumer and the stream notices it hears; the
 * delivery worker, the retention, the replay worker, the open streams' leases and the
 * idempotency purge. Stopping ends the consumers first (nothing new is queued), then lets the
 * workers record the attempts under way; pending work stays in the database for the next instance.
 */
export function createNotificationsService(options: NotificationsOptions = {}): ServiceDefinition<Config, NotificationsContext> {
  return {
    name: 'notifications',
    migrations,
    loadConfig,
    context: (runtime, config) => createContext(runtime, config, options),
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
            timeouts: {
              answerMs: config.WEBHOOK_TIMEOUT_MS,
              connectMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
              firstByteMs: config.WEBHOOK_FIRST_BYTE_TIMEOUT_MS ?? config.WEBHOOK_TIMEOUT_MS,
            },
            leaseMs: config.DELIVERY_LEASE_MS,
            pollIntervalMs: config.DELIVERY_POLL_INTERVAL_MS,
            concurrency: config.DELIVERY_CONCURRENCY,
            inFlight: { perEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, perAccount: config.WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT },
            disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
            circuit: {
              threshold: config.WEBHOOK_CIRCUIT_THRESHOLD,
              cooldownMs: config.WEBHOOK_CIRCUIT_COOLDOWN_MS,
              maxCooldownMs: config.WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS,
            },
            resolveHost,
            allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
            secrets,
          }),
      },
      {
        name: 'event retention',
        start: ({ db, logger, config }) =>
          startRetention({
            knex: db.knex,
            logger,
            keepMs: config.EVENT_RETENTION_MS,
            keepTestMs: config.TEST_DATA_RETENTION_MS,
            intervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
            batchSize: config.RETENTION_BATCH_SIZE,
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
            maxPendingPerAccount: config.WEBHOOK_MAX_PENDING_PER_ACCOUNT,
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
        start: ({ bus, db, logger, config }) =>
          startEventConsumer({
            bus,
            db,
            logger,
            maxDeliver: config.EVENT_MAX_DELIVER,
            backoffMs: config.EVENT_REDELIVERY_BACKOFF_MS,
            maxPendingPerAccount: config.WEBHOOK_MAX_PENDING_PER_ACCOUNT,
          }),
      },
      {
        name: 'stream notices',
        start: ({ bus, logger }) => startStreamNoticeListener({ bus, logger }),
      },
    ],
  };
}

export const notificationsService: ServiceDefinition<Config, NotificationsContext> = createNotificationsService();
