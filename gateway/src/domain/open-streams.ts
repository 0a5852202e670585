/**
 * The event streams this instance is passing on, by the key that opened them. A key that is
 * revoked, rotated or restricted has its streams closed at once, on every instance (the key
 * change notice reaches each): a stream must not outlive the right to read it. The client's
 * reconnect then meets the key's new state at the door.
 */
export class OpenStreams {
  private readonly byKey = new Map<string, Set<() => void>>();

  /** Registers an open stream; returns what removes it (once it ended for any reason). */
  add(keyId: string, close: () => void): () => void {
    let streams = this.byKey.get(keyId);
    if (!streams) this.byKey.set(keyId, (streams = new Set()));
    streams.add(close);
    return () => {
      const current = this.byKey.get(keyId);
      current?.delete(close);
      if (current?.size === 0) this.byKey.delete(keyId);
    };
  }

  /** Closes every stream of these keys; how many there were. */
  close(keyIds: readonly string[]): number {
    let closed = 0;
    for (const keyId of keyIds) {
      const streams = this.byKey.get(keyId);
      if (!streams) continue;
      this.byKey.delete(keyId);
      for (const close of streams) {
        close();
        closed += 1;
      }
    }
    return closed;
  }

  /** Open streams of a key (for tests and metrics). */
  count(keyId: string): number {
    return this.byKey.get(keyId)?.size ?? 0;
  }
}
