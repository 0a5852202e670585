/**
 * The in-process bus for embedded mode. It keeps JetStream's semantics so code tested on it
 * behaves the same in production: message-id de-duplication in a window, durable consumers
 * whose position survives a stop, explicit ack, redelivery with backoff, dead-lettering after
 * maxDeliver, and handlers started in order, at most `concurrency` of a durable's at once (one
 * at a time by default), as the JetStream bus runs the messages it pulled. Each bus is its own
 * world.
 */
import { deadLetterSubject } from './types.ts';
import type { Bus, BusMessage, MessageHandler, NoticeHandler, PublishInput, PublishResult, SubscribeOptions, Subscription } from './types.ts';
import {
  assertPublishInput,
  deadLetterHeaders,
  DEFAULT_DUPLICATE_WINDOW_MS,
  encodePayload,
  redeliveryDelay,
  resolveSubscribeOptions,
  subjectMatches,
} from './rules.ts';
import type { ResolvedSubscribeOptions } from './rules.ts';
import { domainMetrics } from '../telemetry/metrics.ts';
import { tracePublish, traceProcess } from './trace-context.ts';

export interface MemoryBusOptions {
  /** How long a message id is remembered for de-duplication; `Infinity` remembers forever. */
  duplicateWindowMs?: number;
  /**
   * Messages kept once every durable has them (a stream's limit): a durable created later starts
   * at the oldest kept, and a long-running sandbox does not grow without end.
   */
  retainMessages?: number;
}

interface StoredMessage {
  seq: number;
  id: string;
  subject: string;
  /** Stored as JSON so handlers get a fresh copy with the same shape JetStream would give. */
  body: string;
  headers: Record<string, string>;
}

interface PendingRedelivery {
  deliveries: number;
  dueAt: number;
}

interface Durable {
  options: ResolvedSubscribeOptions;
  /** Sequence of the first message this durable has not been offered yet, minus one. */
  cursor: number;
  /** Failed messages waiting for their redelivery, by sequence. */
  pending: Map<number, PendingRedelivery>;
  handlers: MessageHandler[];
  turn: number;
  /** Deliveries under way, by sequence (kept in the log until settled: a failure comes back). */
  inFlight: Map<number, Promise<void>>;
  /** Inside `kick`'s loop (a settling delivery calls `kick` again). */
  pumping: boolean;
  timer: NodeJS.Timeout | null;
}

export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  const windowMs = options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
  const log: StoredMessage[] = [];
  /** Messages dropped from the front of the log: `log[i]` has sequence `base + i + 1`. */
  let base = 0;
  const retain = options.retainMessages ?? 10_000;
  const at = (seq: number): StoredMessage | undefined => log[seq - 1 - base];

  /** Drops the messages every durable has been offered and none waits to see again, beyond `retain`. */
  function trim(): void {
    const excess = log.length - retain;
    if (excess <= 0) return;
    let safe = base + excess;
    for (const d of durables.values()) {
      safe = Math.min(safe, d.cursor);
      for (const seq of d.pending.keys()) safe = Math.min(safe, seq - 1);
      for (const seq of d.inFlight.keys()) safe = Math.min(safe, seq - 1);
    }
    if (safe <= base) return;
    log.splice(0, safe - base);
    base = safe;
  }
  /** Message id -> when it was first seen; a Map keeps insertion (so time) order for pruning. */
  const seen = new Map<string, number>();
  const durables = new Map<string, Durable>();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error('bus: the memory bus is closed');
  };

  function pruneSeen(now: number): void {
    for (const [id, at] of seen) {
      if (now - at < windowMs) break;
      seen.delete(id);
    }
  }

  function append(subject: string, id: string, body: string, headers: Record<string, string>): void {
    log.push({ seq: base + log.length + 1, id, subject, body, headers: { ...headers } });
    trim();
    // Deliver on a later turn, as over a network: a handler never runs inside its publisher's call.
    setImmediate(() => {
      for (const durable of durables.values()) kick(durable);
    });
  }

  /** The next message for a durable: a due redelivery first (oldest first), else the next new one. */
  function takeNext(d: Durable, now: number): { stored: StoredMessage; deliveries: number } | undefined {
    let due: number | undefined;
    for (const [seq, p] of d.pending) {
      if (p.dueAt <= now && (due === undefined || seq < due)) due = seq;
    }
    if (due !== undefined) {
      const stored = at(due);
      const deliveries = d.pending.get(due)?.deliveries ?? 0;
      d.pending.delete(due);
      if (stored) return { stored, deliveries };
    }
    while (d.cursor < base + log.length) {
      const stored = at(d.cursor + 1);
      d.cursor += 1;
      if (stored && d.options.filterSubjects.some((f) => subjectMatches(f, stored.subject))) {
        return { stored, deliveries: 0 };
      }
    }
    return undefined;
  }

  function armTimer(d: Durable): void {
    if (d.timer) clearTimeout(d.timer);
    d.timer = null;
    let earliest = Infinity;
    for (const p of d.pending.values()) earliest = Math.min(earliest, p.dueAt);
    if (earliest === Infinity || closed) return;
    d.timer = setTimeout(() => kick(d), Math.max(0, earliest - Date.now()));
    // A waiting redelivery alone should not keep the process alive.
    d.timer.unref();
  }

  async function deliver(d: Durable, stored: StoredMessage, deliveryCount: number): Promise<void> {
    const handler = d.handlers[d.turn % d.handlers.length];
    d.turn += 1;
    const msg: BusMessage = {
      id: stored.id,
      subject: stored.subject,
      payload: JSON.parse(stored.body) as unknown,
      headers: { ...stored.headers },
      deliveryCount,
    };
    const { durable, maxDeliver, backoffMs } = d.options;
    if (deliveryCount > 1) domainMetrics.consumerRedelivered(durable);
    try {
      if (!handler) throw new Error('bus: no handler');
      await traceProcess('memory', durable, msg, () => handler(msg));
    } catch (err) {
      if (deliveryCount >= maxDeliver) {
        // Dead letters bypass de-duplication: they keep the original id, which was already seen.
        append(deadLetterSubject(durable, stored.subject), stored.id, stored.body, deadLetterHeaders(stored.headers, err, durable, deliveryCount));
        domainMetrics.consumerDeadLettered(durable);
      } else {
        d.pending.set(stored.seq, { deliveries: deliveryCount, dueAt: Date.now() + redeliveryDelay(backoffMs, deliveryCount) });
      }
    }
  }

  /**
   * Starts deliveries of a durable up to its concurrency, in the log's order; each one that
   * settles starts the next. With concurrency 1, one after another, in order.
   */
  function kick(d: Durable): void {
    if (d.pumping) return;
    d.pumping = true;
    try {
      while (!closed && d.handlers.length > 0 && d.inFlight.size < d.options.concurrency) {
        const next = takeNext(d, Date.now());
        if (!next) break;
        const seq = next.stored.seq;
        const delivery: Promise<void> = deliver(d, next.stored, next.deliveries + 1).finally(() => {
          // A failed message due again at once may be under way again already.
          if (d.inFlight.get(seq) === delivery) d.inFlight.delete(seq);
          kick(d);
        });
        d.inFlight.set(seq, delivery);
      }
    } finally {
      d.pumping = false;
    }
    if (d.inFlight.size === 0) {
      armTimer(d);
      trim();
    }
  }

  /** Adds a subscriber to its durable, creating the durable (at the start of the log) if new. */
  function attach(opts: SubscribeOptions, handler: MessageHandler): Subscription {
    assertOpen();
    const options = resolveSubscribeOptions(opts);
    let d = durables.get(options.durable);
    if (!d) {
      // A new durable starts at the oldest message kept.
      d = { options, cursor: base, pending: new Map(), handlers: [], turn: 0, inFlight: new Map(), pumping: false, timer: null };
      durables.set(options.durable, d);
    }
    // Like a JetStream consumer update: the latest subscriber's settings win, the position stays.
    d.options = options;
    d.handlers.push(handler);
    const durable = d;
    kick(durable);
    let stopped = false;
    return {
      lag(): Promise<number> {
        const waiting = log.slice(durable.cursor - base).filter((m) => durable.options.filterSubjects.some((f) => subjectMatches(f, m.subject))).length;
        return Promise.resolve(waiting + durable.pending.size);
      },
      async stop(): Promise<void> {
        if (stopped) return;
        stopped = true;
        durable.handlers = durable.handlers.filter((x) => x !== handler);
        // Resolve only once the deliveries under way are settled, so no handler runs after stop.
        await Promise.all(durable.inFlight.values());
      },
    };
  }

  const listeners = new Set<{ subject: string; handler: NoticeHandler }>();

  return {
    kind: 'memory',

    notify(subject: string, payload: unknown): Promise<void> {
      assertOpen();
      const body = encodePayload(payload);
      // Heard on a later turn, as over a network.
      setImmediate(() => {
        for (const listener of listeners) {
          if (subjectMatches(listener.subject, subject)) listener.handler(JSON.parse(body) as unknown);
        }
      });
      return Promise.resolve();
    },

    listen<T = unknown>(subject: string, handler: NoticeHandler<T>): Promise<Subscription> {
      assertOpen();
      const listener = { subject, handler: handler as NoticeHandler };
      listeners.add(listener);
      return Promise.resolve({
        stop: () => {
          listeners.delete(listener);
          return Promise.resolve();
        },
      });
    },

    async publish(input: PublishInput): Promise<PublishResult> {
      assertOpen();
      assertPublishInput(input);
      const body = encodePayload(input.payload);
      return tracePublish<PublishResult>('memory', input, (headers) => {
        const now = Date.now();
        pruneSeen(now);
        if (seen.has(input.id)) return Promise.resolve({ duplicate: true });
        seen.set(input.id, now);
        append(input.subject, input.id, body, headers);
        return Promise.resolve({ duplicate: false });
      });
    },

    subscribe<T = unknown>(opts: SubscribeOptions, handler: MessageHandler<T>): Promise<Subscription> {
      // An executor turns a thrown validation error into a rejection, as callers of a port expect.
      return new Promise((resolve) => resolve(attach(opts, handler as MessageHandler)));
    },

    ping(): Promise<void> {
      return new Promise((resolve) => {
        assertOpen();
        resolve();
      });
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const d of durables.values()) {
        if (d.timer) clearTimeout(d.timer);
        d.timer = null;
      }
      await Promise.all([...durables.values()].flatMap((d) => [...d.inFlight.values()]));
    },
  };
}
