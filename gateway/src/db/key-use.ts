import type { PassResult } from '@connectivity/platform';
import type { Knex } from 'knex';
import { recordKeyEvent } from './key-events.ts';
import type { Identity } from '../domain/identity.ts';
import { markFirstUse, touchKeys } from './keys-repository.ts';

/**
 * The bookkeeping of key use without a write per request: `api_key.first_used` is written on a
 * key's first authenticated request (once per instance at most; the conditional update makes it
 * exactly once across instances), and `last_used_at` of every key used since the last flush is
 * written in one statement (the key-use flusher flushes every KEY_USE_FLUSH_MS).
 */
export class KeyUse {
  private readonly used = new Set<string>();
  private readonly firstUses = new Map<string, Promise<void>>();
  private readonly knex: Knex;

  constructor(knex: Knex) {
    this.knex = knex;
  }

  /** Notes a use; awaits only the first use of a key (its event is written before the answer). */
  async note(key: Identity): Promise<void> {
    if (key.firstUsedAt === null) {
      let first = this.firstUses.get(key.keyId);
      if (!first) {
        first = this.recordFirstUse(key);
        this.firstUses.set(key.keyId, first);
        first.finally(() => this.firstUses.delete(key.keyId)).catch(() => undefined);
      }
      await first;
      return;
    }
    this.used.add(key.keyId);
  }

  private async recordFirstUse(key: Identity): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const first = await markFirstUse(trx, key.keyId);
      if (first) await recordKeyEvent(trx, 'api_key.first_used', first);
    });
    // Whoever wrote it (this instance or another), the key has been used now.
    key.firstUsedAt = new Date();
  }

  /** Writes the last use of the keys noted since the previous flush. */
  async flush(): Promise<PassResult> {
    if (this.used.size === 0) return { done: 0, more: false };
    const ids = [...this.used];
    this.used.clear();
    await touchKeys(this.knex, ids);
    return { done: ids.length, more: false };
  }
}
