/**
 * The NATS JetStream adapter of the bus port (distributed mode). Events live in one stream
 * (`events.>`), dead letters in a second one (`dead.>`) so they can be kept and inspected apart.
 * Subjects in the API are relative; `subjectPrefix` is prepended on the wire, which lets tests
 * (and several environments on one server) isolate themselves.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, nanos } from '@nats-io/transport-node';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { connectionOptions, ensureConsumer, ensureStream, supportsFilterSubjects, type NatsCredentials } from './jetstream-setup.ts';
import { BUS_MSG_ID_HEADER, headersToRecord, recordToHeaders } from './jetstream-headers.ts';
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

export interface JetStreamBusOptions {
  /** One server, or a comma-separated list (the client also learns the rest of a cluster from the server). */
  url: string;
  /** Stream of events; dead letters go to `${streamName}_DEAD`. */
  streamName?: string;
  /** Prepended to every subject on the wire, e.g. `t1a2b.`; empty in production. */
  subjectPrefix?: string;
  /** Connection name, shown by the server (e.g. the service name). */
  name?: string;
  /**
   * Prepended to every durable consumer's name, so two deployments sharing one NATS server (with
   * their own stream and subject prefix) never share a consumer.
   */
  durablePrefix?: string;
  duplicateWindowMs?: number;
  /**
   * Copies of each stream: new streams are created with it (default 1) and existing ones brought
   * to it. Unset, an existing stream keeps the count it has (an operator may have raised it).
   */
  replicas?: number;
  /** Failures the bus recovers from by itself (a consume loop restart, a failed ack), for logging. */
  onError?: (err: unknown, context: string) => void;
  /** The NATS user (and TLS) this process connects as; none: an open server. */
  credentials?: NatsCredentials;
}

/** How long the server waits for an ack before redelivering; kept alive while a handler runs. */
const ACK_WAIT_MS = 30_000;
/** Messages pulled ahead of the handler; small, because buffered messages' ack timers run too. */
const PULL_BATCH = 8;
/** Pause before re-opening a consume loop that ended on an error. */
const RESTART_DELAY_MS = 1_000;
const PREFIX = /^([A-Za-z0-9_-]+\.)*$/;
const STREAM_NAME = /^[A-Za-z0-9_-]+$/;

export async function createJetStreamBus(options: JetStreamBusOptions): Promise<Bus> {
  const prefix = options.subjectPrefix ?? '';
  const streamName = options.streamName ?? 'EVENTS';
  const deadStreamName = `${streamName}_DEAD`;
  if (!PREFIX.test(prefix)) throw new Error(`bus: subjectPrefix must be dot-terminated tokens, got "${prefix}"`);
  if (!STREAM_NAME.test(streamName)) throw new Error(`bus: invalid stream name "${streamName}"`);
  if (options.durablePrefix !== undefined && !/^[A-Za-z0-9_-]*$/.test(options.durablePrefix)) {
    throw new Error(`bus: invalid durable prefix "${options.durablePrefix}"`);
  }
  const duplicateWindow = nanos(options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS);
  const report = (err: unknown, where: string): void => options.onError?.(err, where);

  const nc = await connect(connectionOptions(options.url, options.name, options.credentials));
  let jsm: JetStreamManager;
  let js: JetStreamClient;
  try {
    jsm = await jetstreamManager(nc);
    js = jsm.jetstream();
    const common = { storage: StorageType.File, duplicate_window: duplicateWindow };
    await ensureStream(jsm, { name: streamName, subjects: [`${prefix}events.>`], ...common }, options.replicas);
    await ensureStream(jsm, { name: deadStreamName, subjects: [`${prefix}dead.>`], ...common }, options.replicas);
  } catch (err) {
    await nc.close();
    throw err;
  }
  const multiFilter = supportsFilterSubjects(nc);
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const unprefix = (subject: string): string => (subject.startsWith(prefix) ? subject.slice(prefix.length) : subject);

  function toBusMessage(m: JsMsg): BusMessage {
    const id = m.headers?.get(BUS_MSG_ID_HEADER) || m.headers?.get('Nats-Msg-Id') || '';
    return {
      id,
      subject: unprefix(m.subject),
      payload: m.json<unknown>(),
      headers: headersToRecord(m.headers),
      deliveryCount: m.info.deliveryCount,
    };
  }

  async function deadLetter(m: JsMsg, o: ResolvedSubscribeOptions, err: unknown): Promise<void> {
    const subject = unprefix(m.subject);
    const original = headersToRecord(m.headers);
    const h = recordToHeaders(deadLetterHeaders(original, err, o.durable, m.info.deliveryCount));
    h.set(BUS_MSG_ID_HEADER, m.headers?.get(BUS_MSG_ID_HEADER) || m.headers?.get('Nats-Msg-Id') || '');
    // The id is stable across redeliveries, so a crash between publish and term adds no second copy.
    await js.publish(`${prefix}${deadLetterSubject(o.durable, subject)}`, m.data, {
      msgID: `${o.durable}:${m.info.stream}:${m.seq}`,
      headers: h,
    });
  }

  async function handle(m: JsMsg, o: ResolvedSubscribeOptions, handler: MessageHandler, matches: (subject: string) => boolean): Promise<void> {
    const deliveryCount = m.info.deliveryCount;
    if (deliveryCount > 1) domainMetrics.consumerRedelivered(o.durable);
    let failure: { err: unknown } | undefined;
    if (matches(unprefix(m.subject))) {
      // Tell the server the handler is still working, so a slow handler is not redelivered meanwhile.
      const keepAlive = setInterval(() => m.working(), ACK_WAIT_MS / 3);
      try {
        const msg = toBusMessage(m);
        await traceProcess('nats', o.durable, msg, () => handler(msg));
      } catch (err) {
        failure = { err };
      } finally {
        clearInterval(keepAlive);
      }
    }
    if (!failure) {
      // Acked without waiting for the server to confirm: a confirmed ack is a request per message
      // (docs/decisions/0014-consumers-ack-without-confirmation.md). An ack lost with the
      // connection only brings the message back after ack_wait, and handlers are idempotent on the
      // message id. `stop` flushes the connection, so the acks of the messages it waited for are
      // with the server before it resolves.
      m.ack();
      return;
    }
    if (deliveryCount < o.maxDeliver) {
      m.nak(redeliveryDelay(o.backoffMs, deliveryCount));
      return;
    }
    try {
      await deadLetter(m, o, failure.err);
      domainMetrics.consumerDeadLettered(o.durable);
      m.term('dead-lettered');
    } catch (err) {
      report(err, `dead-letter ${o.durable}`);
      m.nak(redeliveryDelay(o.backoffMs, deliveryCount));
    }
  }

  return {
    kind: 'jetstream',

    async publish(input: PublishInput): Promise<PublishResult> {
      if (closed) throw new Error('bus: the JetStream bus is closed');
      assertPublishInput(input);
      const body = encodePayload(input.payload);
      return tracePublish('nats', input, async (h) => {
        const ack = await js.publish(`${prefix}${input.subject}`, body, { msgID: input.id, headers: recordToHeaders(h) });
        return { duplicate: ack.duplicate };
      });
    },

    async subscribe<T = unknown>(opts: SubscribeOptions, handler: MessageHandler<T>): Promise<Subscription> {
      if (closed) throw new Error('bus: the JetStream bus is closed');
      const o = resolveSubscribeOptions(opts);
      const stream = o.space === 'dead' ? deadStreamName : streamName;
      const wire = o.filterSubjects.map((f) => `${prefix}${f}`);
      const [single] = wire;
      const serverFilters = wire.length === 1 || multiFilter;
      const matches = serverFilters ? () => true : (subject: string) => o.filterSubjects.some((f) => subjectMatches(f, subject));
      const durableName = `${options.durablePrefix ?? ''}${o.durable}`;
      await ensureConsumer(jsm, stream, durableName, {
        // Exactly one of the two is sent: a consumer may not have both.
        filter_subject: wire.length === 1 ? single : undefined,
        filter_subjects: wire.length > 1 && multiFilter ? wire : undefined,
        ack_wait: nanos(ACK_WAIT_MS),
        // One delivery more than the handler's budget: if the last attempt is lost to a crash or
        // an ack timeout, the message still comes back once and is dead-lettered, not dropped.
        max_deliver: o.maxDeliver + 1,
      });
      const consumer = await js.consumers.get(stream, durableName);

      const abort = new AbortController();
      let messages: ConsumerMessages | undefined;
      const loop = (async () => {
        while (!abort.signal.aborted && !nc.isClosed()) {
          try {
            messages = await consumer.consume({ max_messages: PULL_BATCH });
            if (abort.signal.aborted) await messages.close();
            // Handlers under way (never rejecting) are waited for however the iteration ends, so
            // `stop` resolves only once none is left to ack on a closing connection.
            const running = new Set<Promise<void>>();
            try {
              for await (const m of messages) {
                // Messages pulled ahead of a stop go straight back to the server for another subscriber.
                if (abort.signal.aborted) {
                  m.nak();
                  continue;
                }
                const handled: Promise<void> = handle(m, o, handler as MessageHandler, matches)
                  .catch((err: unknown) => report(err, `handle ${o.durable}`))
                  .finally(() => running.delete(handled));
                running.add(handled);
                if (running.size >= o.concurrency) await Promise.race(running);
              }
            } finally {
              await Promise.all(running);
            }
          } catch (err) {
            if (!abort.signal.aborted) report(err, `consume ${o.durable}`);
          }
          if (!abort.signal.aborted) await sleep(RESTART_DELAY_MS, undefined, { signal: abort.signal }).catch(() => undefined);
        }
      })();

      const subscription: Subscription = {
        async lag(): Promise<number> {
          return (await consumer.info()).num_pending;
        },
        async stop(): Promise<void> {
          if (abort.signal.aborted) return;
          abort.abort();
          subscriptions.delete(subscription);
          await messages?.close();
          await loop;
          if (!nc.isClosed()) await nc.flush().catch((err: unknown) => report(err, `flush acks of ${o.durable}`));
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    notify(subject: string, payload: unknown): Promise<void> {
      if (closed) throw new Error('bus: the JetStream bus is closed');
      // Core NATS: every connection subscribed right now hears it; nothing is stored.
      nc.publish(`${prefix}${subject}`, encodePayload(payload));
      return Promise.resolve();
    },

    listen<T = unknown>(subject: string, handler: NoticeHandler<T>): Promise<Subscription> {
      if (closed) throw new Error('bus: the JetStream bus is closed');
      const sub = nc.subscribe(`${prefix}${subject}`, {
        callback: (err, msg) => {
          if (err) {
            report(err, `listen ${subject}`);
            return;
          }
          try {
            handler(msg.json<T>());
          } catch (error) {
            report(error, `listen ${subject}`);
          }
        },
      });
      return Promise.resolve({
        stop: async () => {
          if (!sub.isClosed()) sub.unsubscribe();
          await Promise.resolve();
        },
      });
    },

    async ping(): Promise<void> {
      await nc.rtt();
      await jsm.getAccountInfo();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((s) => s.stop()));
      if (!nc.isClosed()) await nc.drain();
    },
  };
}
