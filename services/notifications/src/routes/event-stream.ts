import { ApiError, apiErrorFromZod, eventRoutes, REQUEST_HEADERS, streamEventsHeadersSchema, streamEventsQuerySchema } from '@connectivity/contracts';
import { endOnDrain, getIdentity, isDraining, type Database, type Logger } from '@connectivity/platform';
import type { Express } from 'express';
import { resumePoint, streamHead, STREAMED_ENVIRONMENT } from '../db/stream-repository.ts';
import { streamTypeFilter } from '../domain/stream-filter.ts';
import { serveStream, type StreamTimings } from '../stream/event-stream.ts';
import type { StreamHubs } from '../stream/stream-hub.ts';
import type { StreamLeases } from '../stream/stream-leases.ts';

export interface EventStreamRouteDeps {
  db: Database;
  logger: Logger;
  timings: StreamTimings;
  hubs: StreamHubs;
  leases: StreamLeases;
}

/**
 * GET /v1/events/stream: Server-Sent Events of the account's test events. A plain express route,
 * not a ts-rest handler: the answer is written as it comes and never ends by itself. Where it
 * starts: after the `Last-Event-ID` header's event (else the `last_event_id` query's), else
 * after the newest entry now. A key may hold a few streams open at once (STREAM_MAX_PER_KEY):
 * one more is 429 `rate_limited`.
 */
export function mountEventStreamRoute(app: Express, deps: EventStreamRouteDeps): void {
  app.get(eventRoutes.streamEvents.path, async (req, res, next) => {
    try {
      const identity = getIdentity(res);
      if (identity.environment !== STREAMED_ENVIRONMENT) throw new ApiError('live_key_test_resource');
      const query = streamEventsQuerySchema.safeParse(req.query);
      if (!query.success) throw apiErrorFromZod(query.error, 'query');
      // An empty Last-Event-ID means none (as EventSource sends it before any id).
      const headers = streamEventsHeadersSchema.pick({ 'last-event-id': true }).safeParse({ 'last-event-id': req.get('last-event-id') || undefined });
      if (!headers.success) throw apiErrorFromZod(headers.error, 'headers');

      const scope = { accountId: identity.accountId, environment: identity.environment };
      const lastEventId = headers.data['last-event-id'] ?? query.data.last_event_id;
      let afterSeq: number;
      if (lastEventId === undefined) {
        afterSeq = await streamHead(deps.db.knex, scope);
      } else {
        const point = await resumePoint(deps.db.knex, scope, lastEventId);
        if (point === undefined) {
          // Not this account's, not a test event, or pruned: resuming from it cannot promise nothing is lost.
          throw new ApiError('invalid_parameter', {
            param: headers.data['last-event-id'] === undefined ? 'last_event_id' : REQUEST_HEADERS.lastEventId,
            message: `No event ${lastEventId} in this account's test event stream to resume after. Reconnect without it to start from now.`,
          });
        }
        afterSeq = point;
      }
      // The gateway always names the key; a call without one counts against its account.
      const lease = await deps.leases.acquire(identity.keyId ?? identity.accountId, identity.accountId);
      if (lease === undefined) {
        throw new ApiError('rate_limited', {
          message: `At most ${deps.leases.maxPerKey} event streams may be open at once per API key; close one before opening another.`,
          retryAfter: String(Math.ceil(deps.leases.ttlMs / 1000)),
        });
      }
      const stream = serveStream({
        db: deps.db,
        hubs: deps.hubs,
        logger: deps.logger,
        res,
        scope,
        afterSeq,
        accepts: streamTypeFilter(query.data.types),
        timings: deps.timings,
        onClose: () => deps.leases.release(lease),
      });
      endOnDrain(res, () => stream.end());
      // Opened on an instance that is stopping: ended at once, so the client reconnects elsewhere.
      if (isDraining()) stream.end();
    } catch (error) {
      next(error);
    }
  });
}
