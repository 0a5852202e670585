import { Readable } from 'node:stream';
import { ApiError, REQUEST_HEADERS } from '@connectivity/contracts';
import type { Caller, Database, Logger } from '@connectivity/platform';
import type { StreamLeases } from '../db/stream-leases.ts';
import { resumePoint, streamHead, type StreamScope } from '../db/stream-repository.ts';
import { assertStreamed, streamTypeFilter } from '../domain/event-stream.ts';
import { eventFrame, KEEPALIVE_FRAME, retryFrame } from '../domain/sse-frames.ts';
import type { StreamHubs } from '../workers/stream-hub.ts';
import { subscribeStream } from './subscribe-stream.ts';

export interface StreamTimings {
  /** A comment line this often keeps an idle stream open (record 0257: 15 s). */
  keepaliveMs: number;
  /** The log is read this often even without a notice, in case one was lost. */
  safetyPollMs: number;
  /** What a client is told to wait before reconnecting. */
  retryMs: number;
}

export interface EventStreamDeps {
  db: Database;
  logger: Logger;
  timings: StreamTimings;
  hubs: StreamHubs;
  leases: StreamLeases;
}

export interface StreamRequest {
  /** The `types` filter, if any. */
  types?: string | undefined;
  /** Where to resume: the `Last-Event-ID` header's event, else the `last_event_id` query's. */
  lastEventId?: { id: string; from: 'header' | 'query' } | undefined;
}

/** Events held in memory for one slow client before it reads the database at its own pace. */
const BUFFER_LIMIT = 256;

/**
 * Opens the caller's test event stream: where it starts (after the `Last-Event-ID` event, else
 * after the newest entry now), a lease on one of the few streams its key may hold open at once
 * (STREAM_MAX_PER_KEY: one more is 429 `rate_limited`), then the stream itself as SSE frames.
 */
export async function openEventStream(deps: EventStreamDeps, caller: Caller, request: StreamRequest): Promise<EventStreamBody> {
  assertStreamed(caller.environment);
  const scope = { accountId: caller.accountId, environment: caller.environment };
  let afterSeq: number;
  if (request.lastEventId === undefined) {
    afterSeq = await streamHead(deps.db.knex, scope);
  } else {
    const { id, from } = request.lastEventId;
    const point = await resumePoint(deps.db.knex, scope, id);
    if (point === undefined) {
      // Not this account's, not a test event, or pruned: resuming from it cannot promise nothing is lost.
      throw new ApiError('invalid_parameter', {
        param: from === 'header' ? REQUEST_HEADERS.lastEventId : 'last_event_id',
        message: `No event ${id} in this account's test event stream to resume after. Reconnect without it to start from now.`,
      });
    }
    afterSeq = point;
  }
  // The gateway always names the key; a call without one counts against its account.
  const lease = await deps.leases.acquire(caller.keyId ?? caller.accountId, caller.accountId);
  if (lease === undefined) {
    throw new ApiError('rate_limited', {
      message: `At most ${deps.leases.maxPerKey} event streams may be open at once per API key; close one before opening another.`,
      retryAfter: String(Math.ceil(deps.leases.ttlMs / 1000)),
    });
  }
  return new EventStreamBody({ ...deps, scope, afterSeq, accepts: streamTypeFilter(request.types), onClose: () => deps.leases.release(lease) });
}

/**
 * One open stream as the body of its answer: the scope's stream entries after `afterSeq`, in
 * order, as SSE frames, then each new entry as the scope's hub reads it (see `subscribeStream`).
 * A slow client holds its own reads back (backpressure: a frame waits until the one before it
 * was taken) instead of piling events up in memory. It never ends by itself: `endStream()` (a
 * drain) ends it, `destroy()` (the client left) drops it; `onClose` runs once either way.
 */
export class EventStreamBody extends Readable {
  private stopped = false;
  /** The frame waiting for the client to take the one before it. */
  private waiting: (() => void) | undefined;
  private readonly cleanup: () => void;

  constructor(options: EventStreamDeps & { scope: StreamScope; afterSeq: number; accepts: (type: string) => boolean; onClose: () => void }) {
    // No frames buffered ahead of the connection: its own buffers are the stream's only slack.
    super({ highWaterMark: 0 });
    const { scope, timings } = options;
    this.push(retryFrame(timings.retryMs));
    const hub = options.hubs.acquire(scope);
    const subscription = subscribeStream({
      knex: options.db.knex,
      hub,
      scope,
      afterSeq: options.afterSeq,
      deliver: (item) => (options.accepts(item.event.type) ? this.send(eventFrame(item.event)) : Promise.resolve()),
      bufferLimit: BUFFER_LIMIT,
      retryMs: timings.safetyPollMs,
      logger: options.logger,
    });
    const keepalive = setInterval(() => {
      if (!this.stopped) this.push(KEEPALIVE_FRAME);
    }, timings.keepaliveMs);
    // Timers of a stream never hold a stopping process up; the server's connections decide.
    keepalive.unref();
    this.cleanup = () => {
      if (this.stopped) return;
      this.stopped = true;
      subscription.close();
      options.hubs.release(scope);
      clearInterval(keepalive);
      this.release();
      options.onClose();
    };
  }

  /** Ends the stream after the frames already sent (a drain: the client reconnects elsewhere). */
  endStream(): void {
    this.cleanup();
    this.push(null);
  }

  override _read(): void {
    this.release();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.cleanup();
    callback(error);
  }

  private send(frame: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.push(frame)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
