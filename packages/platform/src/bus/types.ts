/**
 * The event bus port. Two adapters implement it: NATS JetStream (distributed) and an
 * in-process bus (embedded mode). Both give the same guarantees the services rely on:
 * publish is de-duplicated on the message id, subscriptions are durable and need an explicit
 * ack (the handler resolving), failures are redelivered, and a message that fails
 * `maxDeliver` times is moved to the dead-letter subject instead of blocking the consumer.
 */
export interface PublishInput {
  /** Message id; a second publish with the same id inside the duplicate window is dropped. */
  id: string;
  /** Full subject, e.g. `events.test.esim.released`. */
  subject: string;
  /** JSON-serialisable payload. */
  payload: unknown;
  /** Extra headers, e.g. W3C `traceparent`. */
  headers?: Record<string, string>;
}

export interface PublishResult {
  /** True when the bus already had a message with this id and dropped this one. */
  duplicate: boolean;
}

export interface BusMessage<T = unknown> {
  id: string;
  subject: string;
  payload: T;
  headers: Record<string, string>;
  /** 1 on the first delivery. */
  deliveryCount: number;
}

export interface SubscribeOptions {
  /** Durable consumer name: a restarted subscriber with the same name resumes where it stopped. */
  durable: string;
  /** Subject filters relative to the bus (wildcards `*` and `>` allowed), e.g. `events.>`. */
  filterSubjects: string[];
  /** Deliveries before a message is dead-lettered. Default 5. */
  maxDeliver?: number;
  /** Delay before each redelivery after a failure, in ms; the last value repeats. */
  backoffMs?: number[];
  /**
   * Handlers run at once for messages already pulled, at most (default 1: one after another).
   * They start in the stream's order; a handler that batches the work of concurrent calls
   * (`createBatcher`) makes one round trip of several messages. Both buses honour it.
   */
  concurrency?: number;
}

/** Resolving acks the message; throwing asks for redelivery (or dead-letters it at maxDeliver). */
export type MessageHandler<T = unknown> = (msg: BusMessage<T>) => Promise<void>;

export interface Subscription {
  stop(): Promise<void>;
  /** Messages on the stream not yet delivered to this durable (its lag); notices have none. */
  lag?(): Promise<number>;
}

/** A handler of broadcast notices (see `Bus.notify`). */
export type NoticeHandler<T = unknown> = (payload: T) => void;

export interface Bus {
  readonly kind: 'jetstream' | 'memory';
  publish(input: PublishInput): Promise<PublishResult>;
  subscribe<T = unknown>(opts: SubscribeOptions, handler: MessageHandler<T>): Promise<Subscription>;
  /**
   * A notice to every process listening on `subject` right now (fan-out, at most once, not
   * stored): for hints such as "this API key changed", where a missed notice is covered by
   * another mechanism (a cache's expiry). Subjects live beside, never inside, the event stream.
   */
  notify(subject: string, payload: unknown): Promise<void>;
  /** Hears the notices of `subject` (exact subject, or NATS wildcards) until stopped. */
  listen<T = unknown>(subject: string, handler: NoticeHandler<T>): Promise<Subscription>;
  /** Throws when the bus is unreachable; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Dead-lettered messages are republished on `dead.<durable>.<original subject>`. */
export const deadLetterSubject = (durable: string, subject: string): string => `dead.${durable}.${subject}`;
