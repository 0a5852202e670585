import type { ServerResponse } from 'node:http';
import type { Database, Logger } from '@connectivity/platform';
import type { StreamScope } from '../db/stream-repository.ts';
import { eventFrame, KEEPALIVE_FRAME, retryFrame } from './sse.ts';
import type { StreamHubs } from './stream-hub.ts';
import { subscribeStream } from './stream-subscription.ts';

export interface StreamTimings {
  /** A comment line this often keeps an idle stream open (DECISIONS.md: 15 s). */
  keepaliveMs: number;
  /** The log is read this often even without a notice, in case one was lost. */
  safetyPollMs: number;
  /** What a client is told to wait before reconnecting. */
  retryMs: number;
}

/** Events held in memory for one slow client before it reads the database at its own pace. */
const BUFFER_LIMIT = 256;

/**
 * Serves one open stream: the scope's stream entries after `afterSeq`, in order, as SSE frames,
 * then each new entry as the scope's hub reads it (see `subscribeStream`). A slow client holds
 * its own reads back (backpressure) instead of piling events up in memory. `onClose` runs once
 * when the stream ends, however it ends. Returns `end`, which closes the stream (a drain).
 */
export function serveStream(options: {
  db: Database;
  hubs: StreamHubs;
  logger: Logger;
  res: ServerResponse;
  scope: StreamScope;
  afterSeq: number;
  accepts: (type: string) => boolean;
  timings: StreamTimings;
  onClose: () => void;
}): { end(): void } {
  const { res, scope, timings } = options;

  // The client may have left while the start was looked up: nothing to serve, nothing to leak.
  if (res.destroyed) {
    options.onClose();
    return { end: () => undefined };
  }

  const writeOrWait = (chunk: string): Promise<void> =>
    res.write(chunk) ? Promise.resolve() : new Promise((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Proxies that buffer (nginx) must pass each frame on at once.
    'x-accel-buffering': 'no',
  });
  res.write(retryFrame(timings.retryMs));

  let closed = false;
  const hub = options.hubs.acquire(scope);
  const subscription = subscribeStream({
    knex: options.db.knex,
    hub,
    scope,
    afterSeq: options.afterSeq,
    deliver: (item) => (options.accepts(item.event.type) ? writeOrWait(eventFrame(item.event)) : Promise.resolve()),
    bufferLimit: BUFFER_LIMIT,
    retryMs: timings.safetyPollMs,
    logger: options.logger,
  });
  const keepalive = setInterval(() => {
    if (!closed) res.write(KEEPALIVE_FRAME);
  }, timings.keepaliveMs);
  // Timers of a stream never hold a stopping process up; the server's connections decide.
  keepalive.unref();

  function cleanup(): void {
    if (closed) return;
    closed = true;
    subscription.close();
    options.hubs.release(scope);
    clearInterval(keepalive);
    options.onClose();
  }
  res.once('close', cleanup);

  return {
    end() {
      cleanup();
      res.end();
    },
  };
}
