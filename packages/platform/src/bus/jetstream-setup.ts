/**
 * What the JetStream bus does before it carries a message: the connection (credentials, TLS, an
 * inbox of its own) and the streams and durable consumers it needs.
 */
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { ConsumerConfig, JetStreamManager, StreamConfig, StreamInfo } from '@nats-io/jetstream';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';

/** The server's answer to creating a stream that exists with another configuration. */
const STREAM_NAME_IN_USE = 10058;

export function isApiError(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/** The servers of a NATS URL that may list several, comma-separated. */
export const natsServers = (url: string): string[] =>
  url
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);

/** How a process proves who it is to NATS, and whether the connection must be TLS. */
export interface NatsCredentials {
  user?: string | undefined;
  password?: string | undefined;
  /** A CA bundle (PEM file): the connection must be TLS, the server verified against it. */
  tlsCaFile?: string | undefined;
}

/**
 * The inbox of a connection named `name`: `_INBOX.<name>`. Replies (JetStream's acks of a publish,
 * its answers, the messages a pull consumer fetches) come to it, so a user's permissions name its
 * own inbox alone, and no service can subscribe to another's replies (record 0221).
 */
export function inboxPrefixOf(name: string | undefined): string {
  return name !== undefined && /^[A-Za-z0-9_-]+$/.test(name) ? `_INBOX.${name}` : '_INBOX';
}

/**
 * Reconnect forever: a NATS restart must not take the service down; /readyz reports it meanwhile.
 * Without async traces, so no publish pays for a stack capture made up front in case it times
 * out; a timeout still fails the publish (and the outbox retries it), with a shorter stack
 * (docs/decisions/0121-nats-client-without-async-traces.md).
 */
export function connectionOptions(url: string, name: string | undefined, credentials: NatsCredentials = {}): ConnectionOptions {
  return {
    servers: natsServers(url),
    name,
    maxReconnectAttempts: -1,
    noAsyncTraces: true,
    inboxPrefix: inboxPrefixOf(name),
    ...(credentials.user !== undefined && { user: credentials.user, pass: credentials.password ?? '' }),
    ...(credentials.tlsCaFile !== undefined && { tls: { caFile: credentials.tlsCaFile } }),
  };
}

const sameSubjects = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  [...(a ?? [])].sort().join(' ') === [...(b ?? [])].sort().join(' ');

/**
 * Makes sure the stream is there as configured: read first, and created or updated only when it
 * is missing or differs (subjects, duplicate window, and replicas when asked for), keeping other
 * settings. A service whose NATS user may only read streams starts on streams its deployment's
 * migrations made; one that may also manage them (a laptop's server without users) makes them.
 */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }, replicas: number | undefined): Promise<void> {
  let current: StreamInfo | undefined;
  try {
    current = await jsm.streams.info(config.name);
  } catch (err) {
    if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw err;
  }
  if (
    current &&
    sameSubjects(current.config.subjects, config.subjects) &&
    current.config.duplicate_window === config.duplicate_window &&
    (replicas === undefined || current.config.num_replicas === replicas)
  ) {
    return;
  }
  if (!current) {
    try {
      await jsm.streams.add({ ...config, num_replicas: replicas ?? 1 });
      return;
    } catch (err) {
      // Another process made it meanwhile: bring it up to date below.
      if (!isApiError(err, STREAM_NAME_IN_USE)) throw err;
    }
  }
  // `update` merges into the stream's current configuration: a key left out keeps its value.
  await jsm.streams.update(config.name, {
    subjects: config.subjects,
    duplicate_window: config.duplicate_window,
    ...(replicas !== undefined && { num_replicas: replicas }),
  });
}

/** Creates or updates the durable pull consumer; tolerates another instance creating it first. */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, durable: string, config: Partial<ConsumerConfig>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await jsm.consumers.update(stream, durable, config);
      return;
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
    }
    try {
      await jsm.consumers.add(stream, {
        ...config,
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
      });
      return;
    } catch (err) {
      if (attempt >= 1) throw err;
    }
  }
}

/** Server 2.10 brought several filter subjects per consumer; older servers get a client-side filter. */
export function supportsFilterSubjects(nc: NatsConnection): boolean {
  const [major = 0, minor = 0] = (nc.info?.version ?? '0.0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 10);
}
