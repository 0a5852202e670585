import { contract } from '@connectivity/contracts';
import { createCursorCodec, createServiceApp, resolveCursorSecret, serviceFrame, tsRestOptions } from '@connectivity/platform';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { SCHEMA } from './db/schema.ts';
import { eventRouter } from './routes/events.ts';
import { webhookRouter } from './routes/webhooks.ts';
import type { NotificationsContext } from './context.ts';

/** The notifications HTTP app; never listens, so tests drive it with supertest. */
export function createApp(context: NotificationsContext): Express {
  const { config, db, bus, logger, secrets, streams } = context;
  const cursors = createCursorCodec(resolveCursorSecret(config));
  return createServiceApp({
    ...serviceFrame(context),
    // Answers are kept sealed like the secrets they may show (a new endpoint's signing secret).
    idempotency: {
      knex: db.knex,
      schema: SCHEMA,
      leaseMs: config.IDEMPOTENCY_LEASE_MS,
      sealer: { seal: (plain, sealContext) => secrets.seal(plain, sealContext), open: (sealed, sealContext) => secrets.open(sealed, sealContext) },
    },
    routes: (app) => {
      const events = eventRouter({
        db,
        bus,
        logger,
        cursors,
        maxEvents: config.REPLAY_MAX_EVENTS,
        timings: { keepaliveMs: config.STREAM_KEEPALIVE_MS, safetyPollMs: config.STREAM_POLL_INTERVAL_MS, retryMs: config.STREAM_RETRY_MS },
        ...streams,
      });
      createExpressEndpoints(contract.events, events, app, tsRestOptions);
      const webhooks = webhookRouter({
        db,
        cursors,
        resolveHost: context.resolveHost,
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        secrets,
        maxEndpoints: config.WEBHOOK_MAX_ENDPOINTS,
      });
      createExpressEndpoints(contract.webhooks, webhooks, app, tsRestOptions);
    },
  });
}
