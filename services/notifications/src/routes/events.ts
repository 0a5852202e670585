import { contract } from '@connectivity/contracts';
import { claimOf, endOnDrain, getCaller, isDraining, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { NextFunction, Request, Response } from 'express';
import { assertStreamed } from '../domain/event-stream.ts';
import { listEvents } from '../use-cases/list-events.ts';
import { openEventStream, type EventStreamDeps } from '../use-cases/open-event-stream.ts';
import { replayEvents, type ReplayDeps } from '../use-cases/replay-events.ts';

const s = initServer();

export type EventRoutesDeps = ReplayDeps & EventStreamDeps & { cursors: CursorCodec };

/**
 * Before ts-rest checks the stream's input: a live caller is refused whatever it sent, and an
 * empty `Last-Event-ID` (EventSource sends one before it has seen an id) means none.
 */
function streamPreconditions(req: Request, res: Response, next: NextFunction): void {
  try {
    assertStreamed(getCaller(res).environment);
    if (req.headers['last-event-id'] === '') delete req.headers['last-event-id'];
    next();
  } catch (error) {
    next(error);
  }
}

/** The event log: list, replay, and the test environment's live stream (Server-Sent Events). */
export function eventRouter(deps: EventRoutesDeps) {
  return s.router(contract.events, {
    listEvents: async ({ query, res }) => ({ status: 200, body: await listEvents(deps.db, deps.cursors, getCaller(res), query) }),
    replayEvents: async ({ body, res }) => ({ status: 200, body: await replayEvents(deps, getCaller(res), body ?? {}, claimOf(res)) }),
    streamEvents: {
      middleware: [streamPreconditions],
      handler: async ({ query, headers, res }) => {
        const header = headers['last-event-id'];
        const resumeFrom = header ?? query.last_event_id;
        const stream = await openEventStream(deps, getCaller(res), {
          types: query.types,
          lastEventId: resumeFrom === undefined ? undefined : { id: resumeFrom, from: header === undefined ? 'query' : 'header' },
        });
        // ts-rest pipes a stream body as it comes and sets no type of its own: the stream's headers stand.
        res.setHeader('content-type', 'text/event-stream; charset=utf-8');
        res.setHeader('cache-control', 'no-store');
        // Proxies that buffer (nginx) must pass each frame on at once.
        res.setHeader('x-accel-buffering', 'no');
        // The client may have left while the start was looked up: nothing to serve, nothing to leak.
        if (res.destroyed) stream.destroy();
        else res.once('close', () => stream.destroy());
        endOnDrain(res, () => stream.endStream());
        // Opened on an instance that is stopping: ended at once, so the client reconnects elsewhere.
        if (isDraining()) stream.endStream();
        return { status: 200, body: stream as never };
      },
    },
  });
}
