/** A bounded memory of facts about a vendor's eSIMs that never change once true (a tag, a refund asked for); the oldest go first. */
export class BoundedMemo {
  private readonly values = new Map<string, string>();
  private readonly max: number;

  constructor(max = 20_000) {
    this.max = max;
  }

  get(key: string): string | undefined {
    return this.values.get(key);
  }

  set(key: string, value: string | undefined): void {
    if (!value) return;
    this.values.set(key, value);
    // A Map keeps insertion order: its first key is the oldest.
    if (this.values.size > this.max) this.values.delete(this.values.keys().next().value as string);
  }
}
