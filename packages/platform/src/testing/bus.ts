/**
 * A bus for tests: JetStream on a stream and subject prefix of its own when `NATS_URL` is set
 * (so parallel tests never see each other's messages, and its streams are deleted on close),
 * the in-process bus otherwise. The one place outside config that may read process.env.
 */
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { JetStreamApiCodes, JetStreamApiError, jetstreamManager } from '@nats-io/jetstream';
import { createJetStreamBus } from '../bus/jetstream-bus.ts';
import { natsServers } from '../bus/jetstream-setup.ts';
import { createMemoryBus } from '../bus/memory-bus.ts';
import type { Bus } from '../bus/types.ts';

export interface TestBusOptions {
  /** Force one adapter; by default JetStream when `NATS_URL` is set, memory otherwise. */
  kind?: 'jetstream' | 'memory';
}

/** Deletes JetStream streams (a test's own), ignoring those already gone. */
export async function deleteStreams(url: string, names: string[]): Promise<void> {
  const nc = await connect({ servers: natsServers(url) });
  try {
    const jsm = await jetstreamManager(nc);
    for (const name of names) {
      try {
        await jsm.streams.delete(name);
      } catch (err) {
        if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      }
    }
  } finally {
    await nc.close();
  }
}

export async function createTestBus(options: TestBusOptions = {}): Promise<Bus> {
  const url = process.env.NATS_URL;
  const kind = options.kind ?? (url ? 'jetstream' : 'memory');
  if (kind === 'memory') return createMemoryBus();
  if (!url) throw new Error('createTestBus: the JetStream bus needs NATS_URL');

  const unique = randomBytes(6).toString('hex');
  const streamName = `TEST_${unique}`;
  const bus = await createJetStreamBus({ url, streamName, subjectPrefix: `t${unique}.`, name: `test-${unique}` });
  return {
    kind: bus.kind,
    publish: (input) => bus.publish(input),
    subscribe: (opts, handler) => bus.subscribe(opts, handler),
    notify: (subject, payload) => bus.notify(subject, payload),
    listen: (subject, handler) => bus.listen(subject, handler),
    ping: () => bus.ping(),
    async close() {
      await bus.close();
      await deleteStreams(url, [streamName, `${streamName}_DEAD`]);
    },
  };
}
