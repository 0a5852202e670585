/** The event bus: the port, its two adapters, and the factory that picks one from configuration. */
import type { Bus } from './types.ts';
import { createJetStreamBus } from './jetstream-bus.ts';
import { createMemoryBus } from './memory-bus.ts';

export * from './types.ts';
export { createJetStreamBus } from './jetstream-bus.ts';
export type { JetStreamBusOptions } from './jetstream-bus.ts';
export { createMemoryBus } from './memory-bus.ts';
export type { MemoryBusOptions } from './memory-bus.ts';
export { DEAD_LETTER_HEADERS, DEFAULT_BACKOFF_MS, DEFAULT_MAX_DELIVER, subjectMatches } from './rules.ts';
export { extractTraceContext, injectTraceContext, withExtractedContext } from './trace-context.ts';

export interface CreateBusOptions {
  /** Set: NATS JetStream (distributed mode). Unset: the in-process bus (embedded mode). */
  natsUrl?: string;
  streamName?: string;
  subjectPrefix?: string;
  /** Connection name shown by the NATS server, e.g. the service name. */
  name?: string;
  /** Failures the JetStream bus recovers from by itself, for logging. */
  onError?: (err: unknown, context: string) => void;
}

export async function createBus(options: CreateBusOptions = {}): Promise<Bus> {
  if (!options.natsUrl) return createMemoryBus();
  return createJetStreamBus({
    url: options.natsUrl,
    streamName: options.streamName,
    subjectPrefix: options.subjectPrefix,
    name: options.name,
    onError: options.onError,
  });
}
