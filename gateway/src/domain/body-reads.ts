import { ApiError } from '@connectivity/contracts';

/**
 * The request bodies being read per API key in this process, at most `max` at once (record
 * 0201): a client that opens many requests and trickles their bodies holds a connection and a
 * buffer for each until the body deadline; past the cap its next body is refused at once
 * (429 `rate_limited`) rather than read. A body sent at once is read within a tick, so the cap is
 * met only by bodies that are slow to come.
 */
export class BodyReads {
  private readonly reading = new Map<string, number>();
  private readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Runs `read` as one of the key's body reads, or refuses it when the key has `max` under way. */
  async during<T>(keyId: string, read: () => Promise<T>): Promise<T> {
    const now = this.reading.get(keyId) ?? 0;
    if (now >= this.max) {
      throw new ApiError('rate_limited', {
        message: `This API key has ${this.max} request bodies being received at once; send each body in one go, or fewer requests at a time.`,
      });
    }
    this.reading.set(keyId, now + 1);
    try {
      return await read();
    } finally {
      const left = (this.reading.get(keyId) ?? 1) - 1;
      if (left === 0) this.reading.delete(keyId);
      else this.reading.set(keyId, left);
    }
  }

  /** Body reads under way for a key (for tests and metrics). */
  count(keyId: string): number {
    return this.reading.get(keyId) ?? 0;
  }
}
