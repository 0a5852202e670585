import { detached, errorMessage, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { readStream, type StreamItem, type StreamScope } from '../db/stream-repository.ts';
import { STREAM_READ_BATCH, type StreamHub, type HubMember } from '../workers/stream-hub.ts';

export interface StreamSubscription {
  /** Ends it: nothing more is handed to `deliver`. */
  close(): void;
  /** Entries held in memory for a slow client now (never more than the limit plus one read). */
  buffered(): number;
}

/**
 * One open stream's entries after `afterSeq`, handed to `deliver` one at a time, in order, each
 * once (its promise is the client's pace). Behind the hub (a resume from an older Last-Event-ID)
 * it reads the database itself until it has caught up, then joins the hub and takes its reads.
 * A client too slow to keep up with the hub gets at most `bufferLimit` entries held in memory:
 * past that it leaves the hub, drops what it held and reads on from the database at its own
 * pace, from the last entry it delivered, so nothing is lost or doubled.
 */
export function subscribeStream(options: {
  knex: Knex;
  hub: StreamHub;
  scope: StreamScope;
  afterSeq: number;
  deliver: (item: StreamItem) => Promise<void>;
  bufferLimit: number;
  /** How long to wait before reading again after a read failed. */
  retryMs: number;
  logger: Logger;
}): StreamSubscription {
  const { hub } = options;
  /** The last entry delivered (or passed to `deliver`). */
  let cursor = options.afterSeq;
  const queue: StreamItem[] = [];
  let joined = false;
  let pumping = false;
  let closed = false;

  const member: HubMember = {
    position: () => queue.at(-1)?.seq ?? cursor,
    offer(items) {
      const from = member.position();
      for (const item of items) if (item.seq > from) queue.push(item);
      if (queue.length > options.bufferLimit) {
        // Too slow for the hub: it catches up from the database by itself.
        hub.leave(member);
        joined = false;
        queue.length = 0;
      }
      pump();
    },
  };

  async function run(): Promise<void> {
    while (!closed) {
      if (joined) {
        const item = queue.shift();
        if (!item) return;
        cursor = item.seq;
        await options.deliver(item);
        continue;
      }
      await hub.ready;
      if (closed) return;
      if (hub.join(member)) {
        joined = true;
        continue;
      }
      const items = await hub.track(readStream(options.knex, options.scope, cursor, STREAM_READ_BATCH));
      for (const item of items) {
        if (closed) return;
        cursor = item.seq;
        await options.deliver(item);
      }
      // Nothing after the cursor although the hub is ahead: what lay between was pruned.
      if (items.length === 0 && !closed) joined = hub.join(member, true);
    }
  }

  function pump(): void {
    if (pumping || closed) return;
    pumping = true;
    // The reads belong to no request's trace: the stream's own span would otherwise swallow them.
    void detached(run)
      .catch((error: unknown) => {
        options.logger.warn({ err: errorMessage(error) }, 'event stream read failed; retried');
        setTimeout(pump, options.retryMs).unref();
      })
      .finally(() => {
        pumping = false;
        // Handed more while the last step finished.
        if (joined && queue.length > 0) pump();
      });
  }

  pump();
  return {
    close() {
      closed = true;
      queue.length = 0;
      hub.leave(member);
    },
    buffered: () => queue.length,
  };
}
