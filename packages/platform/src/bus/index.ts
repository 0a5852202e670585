/** The event bus: the port, its two adapters, and the factory that picks one from configuration. */
import type { CommonConfig } from '../config.ts';
import type { Bus } from './types.ts';
import type { NatsCredentials } from './jetstream-setup.ts';
import { createJetStreamBus } from './jetstream-bus.ts';
import { createMemoryBus } from './memory-bus.ts';

export * from './types.ts';
export { createJetStreamBus } from './jetstream-bus.ts';
export type { JetStreamBusOptions } from './jetstream-bus.ts';
export { connectionOptions, ensureStream, inboxPrefixOf, natsServers } from './jetstream-setup.ts';
export type { NatsCredentials } from './jetstream-setup.ts';
export * from './permissions.ts';
export { createMemoryBus } from './memory-bus.ts';
export type { MemoryBusOptions } from './memory-bus.ts';
export { DEAD_LETTER_HEADERS, DEFAULT_BACKOFF_MS, DEFAULT_MAX_DELIVER, subjectMatches } from './rules.ts';
export { extractTraceContext, injectTraceContext, withExtractedContext } from './trace-context.ts';

export interface CreateBusOptions {
  /** Set: NATS JetStream (distributed mode). Unset: the in-process bus (embedded mode). */
  natsUrl?: string;
  streamName?: string;
  subjectPrefix?: string;
  durablePrefix?: string;
  /** Copies of each stream JetStream keeps; unset: one for a new stream, an existing one's left alone. */
  replicas?: number;
  /** Connection name shown by the NATS server, e.g. the service name. */
  name?: string;
  /** Failures the JetStream bus recovers from by itself, for logging. */
  onError?: (err: unknown, context: string) => void;
  /** The NATS user this process connects as, and TLS. */
  credentials?: NatsCredentials;
}

/** The bus options a process's configuration names (see `commonConfigSchema`). */
export const busOptionsFrom = (config: CommonConfig, name?: string): CreateBusOptions => ({
  natsUrl: config.NATS_URL,
  streamName: config.NATS_STREAM,
  subjectPrefix: config.NATS_SUBJECT_PREFIX,
  durablePrefix: config.NATS_DURABLE_PREFIX,
  replicas: config.NATS_STREAM_REPLICAS,
  credentials: { user: config.NATS_USER, password: config.NATS_PASSWORD, tlsCaFile: config.NATS_TLS_CA_FILE },
  ...(name !== undefined && { name }),
});

export async function createBus(options: CreateBusOptions = {}): Promise<Bus> {
  if (!options.natsUrl) return createMemoryBus();
  return createJetStreamBus({
    url: options.natsUrl,
    streamName: options.streamName,
    subjectPrefix: options.subjectPrefix,
    durablePrefix: options.durablePrefix,
    replicas: options.replicas,
    name: options.name,
    onError: options.onError,
    credentials: options.credentials,
  });
}
