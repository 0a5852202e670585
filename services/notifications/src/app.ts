import { createCursorCodec, createServiceApp, serviceFrame, resolveCursorSecret, type ServiceRuntime } from '@connectivity/platform';
import type { Express } from 'express';
import type { Config } from './config.ts';
import { SCHEMA } from './db/migrations/index.ts';
import { systemResolveHost, type ResolveHost } from './delivery/public-host.ts';
import { mountEventStreamRoute } from './routes/event-stream.ts';
import { mountEventRoutes } from './routes/events.ts';
import { mountWebhookRoutes } from './routes/webhooks.ts';
import { createSecretBox, type SecretBox } from './secrets/secret-box.ts';
import type { StreamHubs } from './stream/stream-hub.ts';
import type { StreamLeases } from './stream/stream-leases.ts';

export interface AppDeps extends ServiceRuntime {
  config: Config;
  /** DNS for the address policy's checks; the system resolver unless a test plays DNS. */
  resolveHost?: ResolveHost;
  /** Seals new signing secrets; made from WEBHOOK_SECRET_KEY unless given. */
  secrets?: SecretBox;
  /** This instance's stream hubs and stream leases (the service renews the leases). */
  streams: { hubs: StreamHubs; leases: StreamLeases };
}

/** The notifications HTTP app; never listens, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const cursors = createCursorCodec(resolveCursorSecret(deps.config));
  const resolveHost = deps.resolveHost ?? systemResolveHost;
  const secrets = deps.secrets ?? createSecretBox(deps.config.WEBHOOK_SECRET_KEY, deps.config.WEBHOOK_SECRET_KEY_PREVIOUS);
  return createServiceApp({
    ...serviceFrame(deps),
    // Answers are kept sealed like the secrets they may show (a new endpoint's signing secret).
    idempotency: {
      knex: deps.db.knex,
      schema: SCHEMA,
      leaseMs: deps.config.IDEMPOTENCY_LEASE_MS,
      sealer: { seal: (plain, context) => secrets.seal(plain, context), open: (sealed, context) => secrets.open(sealed, context) },
    },
    routes: (app) => {
      mountEventStreamRoute(app, {
        db: deps.db,
        logger: deps.logger,
        timings: { keepaliveMs: deps.config.STREAM_KEEPALIVE_MS, safetyPollMs: deps.config.STREAM_POLL_INTERVAL_MS, retryMs: deps.config.STREAM_RETRY_MS },
        ...deps.streams,
      });
      mountEventRoutes(app, { db: deps.db, bus: deps.bus, logger: deps.logger, cursors, maxEvents: deps.config.REPLAY_MAX_EVENTS });
      mountWebhookRoutes(app, {
        db: deps.db,
        cursors,
        resolveHost,
        allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE,
        secrets,
        maxEndpoints: deps.config.WEBHOOK_MAX_ENDPOINTS,
      });
    },
  });
}
