import { startPoller, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { readStream, streamGrowthSignal, streamHead, type StreamItem, type StreamScope } from '../db/stream-repository.ts';

/** Entries read at once; a full batch is followed by the next at once. */
export const STREAM_READ_BATCH = 100;

/** A stream that takes what its hub reads. */
export interface HubMember {
  /** The last entry the member holds (written, or waiting to be): the hub hands it only later ones. */
  position(): number;
  /** Entries the hub read, in order; called synchronously with the hub's move. */
  offer(items: readonly StreamItem[]): void;
}

/**
 * The one reader of a scope's stream in this instance: ONE database read per wake for every open
 * stream of the account and environment, not one per stream. It runs on the platform's poller,
 * woken by the scope's growth signal (a commit here, or another instance's notice) and at the
 * safety poll, and hands each read to the streams that have caught up with it (its members).
 * A stream behind it (a resume, or a slow client dropped from the members) reads the database
 * itself until it has caught up, then joins.
 */
export class StreamHub {
  /** The last entry read; undefined until the hub knows where the stream stands. */
  private head: number | undefined;
  private readonly members = new Set<HubMember>();
  /** Reads of the streams catching up by themselves, so stopping waits for them too. */
  private readonly reads = new Set<Promise<unknown>>();
  private readonly poller: Poller;
  private markReady!: () => void;
  /** Resolves once the hub knows its head (its first pass). */
  readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });

  private readonly knex: Knex;
  private readonly scope: StreamScope;

  constructor(knex: Knex, scope: StreamScope, options: { safetyPollMs: number; logger: Logger }) {
    this.knex = knex;
    this.scope = scope;
    this.poller = startPoller({
      name: 'event stream hub',
      intervalMs: options.safetyPollMs,
      wakeOn: [streamGrowthSignal(scope)],
      firstDelayMs: 0,
      logger: options.logger,
      pass: () => this.read(),
    });
  }

  private async read(): Promise<{ done: number; more: boolean }> {
    if (this.head === undefined) {
      // Streams opened from now on start after this: nothing older is the hub's to read.
      this.head = await streamHead(this.knex, this.scope);
      this.markReady();
    }
    const items = await readStream(this.knex, this.scope, this.head, STREAM_READ_BATCH);
    const last = items.at(-1);
    if (last) {
      // The head moves with the hand-out, in one synchronous step, so a joining stream sees both or neither.
      this.head = last.seq;
      for (const member of [...this.members]) member.offer(items);
    }
    return { done: items.length, more: items.length === STREAM_READ_BATCH };
  }

  /**
   * Takes `member` in if it has caught up with the hub (or if `force`: it found nothing more in
   * the database, so what lies between it and the head is gone, pruned). False: read on.
   */
  join(member: HubMember, force = false): boolean {
    if (this.head === undefined) return false;
    if (!force && member.position() < this.head) return false;
    this.members.add(member);
    return true;
  }

  leave(member: HubMember): void {
    this.members.delete(member);
  }

  /** A read a stream of this hub makes by itself; the hub's stop waits for it. */
  track<T>(read: Promise<T>): Promise<T> {
    this.reads.add(read);
    const done = () => this.reads.delete(read);
    read.then(done, done);
    return read;
  }

  async stop(): Promise<void> {
    this.members.clear();
    await this.poller.stop();
    await Promise.allSettled([...this.reads]);
  }
}

/** This instance's hubs, one per scope with an open stream; a hub stops when its last stream ends. */
export class StreamHubs {
  private readonly hubs = new Map<string, { hub: StreamHub; streams: number }>();
  /** Hubs whose last stream ended, until their poller has stopped. */
  private readonly stopping = new Set<Promise<void>>();
  private readonly knex: Knex;
  private readonly options: { safetyPollMs: number; logger: Logger };

  constructor(knex: Knex, options: { safetyPollMs: number; logger: Logger }) {
    this.knex = knex;
    this.options = options;
  }

  acquire(scope: StreamScope): StreamHub {
    const key = `${scope.environment}:${scope.accountId}`;
    let entry = this.hubs.get(key);
    if (!entry) {
      entry = { hub: new StreamHub(this.knex, scope, this.options), streams: 0 };
      this.hubs.set(key, entry);
    }
    entry.streams += 1;
    return entry.hub;
  }

  release(scope: StreamScope): void {
    const key = `${scope.environment}:${scope.accountId}`;
    const entry = this.hubs.get(key);
    if (!entry) return;
    entry.streams -= 1;
    if (entry.streams > 0) return;
    this.hubs.delete(key);
    const stopped = entry.hub.stop().finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }

  /** How many hubs run (for tests and metrics). */
  get size(): number {
    return this.hubs.size;
  }

  /** Stops every hub and waits for the reads under way, so none outlives the database. */
  async stop(): Promise<void> {
    const entries = [...this.hubs.values()];
    this.hubs.clear();
    await Promise.all([...entries.map((entry) => entry.hub.stop()), ...this.stopping]);
  }
}
