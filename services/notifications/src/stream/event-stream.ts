import type { ServerResponse } from 'node:http';
import { detached, type Database, type Logger } from '@connectivity/platform';
import { readStream, type StreamScope } from '../db/stream-repository.ts';
import { eventFrame, KEEPALIVE_FRAME, retryFrame } from './sse.ts';
import { onStreamGrowth } from './stream-notices.ts';

export interface StreamTimings {
  /** A comment line this often keeps an idle stream open (DECISIONS.md: 15 s). */
  keepaliveMs: number;
  /** The log is read this often even without a notice, in case one was lost. */
  safetyPollMs: number;
  /** What a client is told to wait before reconnecting. */
  retryMs: number;
}

/** Entries read at once; a full batch is followed by the next at once. */
const BATCH = 100;

/**
 * Serves one open stream: the scope's stream entries after `afterSeq`, in order, as SSE frames,
 * then each new entry as it is stored (woken by a notice, or by the safety poll). One read at a
 * time; a wake during a read asks for another. A slow client holds the reads back (backpressure)
 * instead of piling events up in memory. Returns `end`, which closes the stream (a drain).
 */
export function serveStream(options: {
  db: Database;
  logger: Logger;
  res: ServerResponse;
  scope: StreamScope;
  afterSeq: number;
  accepts: (type: string) => boolean;
  timings: StreamTimings;
}): { end(): void } {
  const { res, scope, timings } = options;
  let cursor = options.afterSeq;
  let closed = false;
  let reading = false;
  let again = false;

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

  async function readAll(): Promise<void> {
    for (;;) {
      again = false;
      const items = await readStream(options.db.knex, scope, cursor, BATCH);
      for (const item of items) {
        if (closed) return;
        cursor = item.seq;
        if (options.accepts(item.event.type)) await writeOrWait(eventFrame(item.event));
      }
      if (closed || (items.length < BATCH && !again)) return;
    }
  }

  function wake(): void {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    // The reads belong to no request's trace: the stream's own span would otherwise swallow them.
    void detached(readAll)
      .catch((error: unknown) => {
        options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'event stream read failed; retried at the next wake');
      })
      .finally(() => {
        reading = false;
        if (again) wake();
      });
  }

  // The client may have left while the start was looked up: nothing to serve, nothing to leak.
  if (res.destroyed) return { end: () => undefined };

  const stopListening = onStreamGrowth(scope, wake);
  const poll = setInterval(wake, timings.safetyPollMs);
  const keepalive = setInterval(() => {
    if (!closed) res.write(KEEPALIVE_FRAME);
  }, timings.keepaliveMs);
  // Timers of a stream never hold a stopping process up; the server's connections decide.
  poll.unref();
  keepalive.unref();

  function cleanup(): void {
    if (closed) return;
    closed = true;
    stopListening();
    clearInterval(poll);
    clearInterval(keepalive);
  }
  res.once('close', cleanup);

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Proxies that buffer (nginx) must pass each frame on at once.
    'x-accel-buffering': 'no',
  });
  res.write(retryFrame(timings.retryMs));
  wake();

  return {
    end() {
      cleanup();
      res.end();
    },
  };
}
