import { randomUUID } from 'node:crypto';
import { errorMessage, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { acquireStreamLease, releaseStreamLease } from './stream-leases-repository.ts';

/**
 * The leases of the streams this instance serves: at most `maxPerKey` open streams per API key
 * across every instance (record 0257). Each is a row renewed while the stream
 * is open (see workers/stream-lease-renewal.ts) and deleted when it closes.
 */
export class StreamLeases {
  private readonly open = new Set<string>();
  /** Releases under way, so a stopping instance can wait for them. */
  private readonly releasing = new Set<Promise<void>>();
  private readonly knex: Knex;
  readonly maxPerKey: number;
  readonly ttlMs: number;
  private readonly logger: Logger;

  constructor(knex: Knex, options: { maxPerKey: number; ttlMs: number; logger: Logger }) {
    this.knex = knex;
    this.maxPerKey = options.maxPerKey;
    this.ttlMs = options.ttlMs;
    this.logger = options.logger;
  }

  /** A lease for one more stream of `keyId`, or undefined when the key has its maximum open. */
  async acquire(keyId: string, accountId: string): Promise<string | undefined> {
    const id = randomUUID();
    if (!(await acquireStreamLease(this.knex, { id, keyId, accountId, ttlMs: this.ttlMs }, this.maxPerKey))) return undefined;
    this.open.add(id);
    return id;
  }

  /** The stream closed: its lease goes at once, so the key may open another. */
  release(id: string): void {
    if (!this.open.delete(id)) return;
    const released = releaseStreamLease(this.knex, id)
      .catch((error: unknown) => this.logger.warn({ err: errorMessage(error) }, 'releasing a stream lease failed; it expires by itself'))
      .finally(() => this.releasing.delete(released));
    this.releasing.add(released);
  }

  /** Resolves when the releases under way are done. */
  async settled(): Promise<void> {
    await Promise.all([...this.releasing]);
  }

  /** The leases to renew. */
  held(): string[] {
    return [...this.open];
  }
}
