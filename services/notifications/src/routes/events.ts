import { eventRoutes } from '@connectivity/contracts';
import { getIdentity, toPage, tsRestOptions, type CursorCodec } from '@connectivity/platform';
import { initServer, createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { z } from 'zod';
import { listEvents } from '../db/events-repository.ts';
import { replayEvents, type ReplayDeps } from '../use-cases/replay-events.ts';

const positionSchema = z.object({ t: z.number().int(), i: z.string() });

export interface EventRouteDeps extends ReplayDeps {
  cursors: CursorCodec;
}

// The stream is served by its own express route (routes/event-stream.ts): ts-rest answers once.
const { streamEvents: _stream, ...jsonRoutes } = eventRoutes;

/** GET /v1/events and POST /v1/events/replay. */
export function mountEventRoutes(app: Express, deps: EventRouteDeps): void {
  const s = initServer();
  const router = s.router(jsonRoutes, {
    listEvents: async ({ query, res }) => {
      const identity = getIdentity(res);
      const scope = { accountId: identity.accountId, environment: identity.environment };
      const binding = { list: 'events', account: scope.accountId, environment: scope.environment };
      const after = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, positionSchema);
      const events = await listEvents(deps.db.knex, scope, after && { timeMs: after.t, id: after.i }, query.limit + 1);
      return {
        status: 200,
        body: toPage(events, query.limit, (last) => deps.cursors.encode({ t: Date.parse(last.time), i: last.id }, binding)),
      };
    },
    replayEvents: async ({ body, res }) => {
      return { status: 200, body: await replayEvents(deps, getIdentity(res), body ?? {}) };
    },
  });
  createExpressEndpoints(jsonRoutes, router, app, tsRestOptions);
}
