/**
 * Address buckets this instance has seen refused, until their window ends. A client without a
 * valid key whose budget is spent is answered 429 from memory: no shared counter, no key lookup,
 * no database round trip, however fast it sends. Bounded: the oldest entries go first.
 */
export class SpentBudgets {
  private readonly until = new Map<string, number>();
  private readonly max: number;

  constructor(max = 100_000) {
    this.max = max;
  }

  /** Milliseconds until the bucket's window ends, or undefined if it is not known to be spent. */
  refusedFor(bucket: string, now = Date.now()): number | undefined {
    const until = this.until.get(bucket);
    if (until === undefined) return undefined;
    if (until > now) return until - now;
    this.until.delete(bucket);
    return undefined;
  }

  /** Notes that `bucket` was refused and stays so for `ms`. */
  spent(bucket: string, ms: number, now = Date.now()): void {
    this.until.delete(bucket);
    this.until.set(bucket, now + ms);
    if (this.until.size <= this.max) return;
    for (const [name, until] of this.until) {
      if (this.until.size <= this.max) break;
      // Insertion order is oldest first; an expired entry or the oldest one makes room.
      if (until <= now || this.until.size > this.max) this.until.delete(name);
    }
  }
}
