import { startPoller, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { AuthenticatedKeyRow } from './keys-repository.ts';
import { markFirstUse } from './keys-repository.ts';
import { recordKeyEvent } from './key-events.ts';

/**
 * The bookkeeping of key use without a write per request: `api_key.first_used` is written on a
 * key's first authenticated request (once per instance at most; the conditional update makes it
 * exactly once across instances), and `last_used_at` is written for all keys used since the last
 * flush in one statement, every `flushMs` (at most once a minute per key, as before).
 */
export class KeyUse {
  private readonly used = new Set<string>();
  private readonly firstUses = new Map<string, Promise<void>>();
  private readonly flusher: Poller;
  private readonly knex: Knex;

  constructor(options: { knex: Knex; logger: Logger; flushMs: number }) {
    this.knex = options.knex;
    this.flusher = startPoller({ name: 'key use', intervalMs: options.flushMs, logger: options.logger, pass: () => this.flush() });
  }

  /** Notes a use; awaits only the first use of a key (its event is written before the answer). */
  async note(key: AuthenticatedKeyRow): Promise<void> {
    if (key.first_used_at === null) {
      let first = this.firstUses.get(key.id);
      if (!first) {
        first = this.recordFirstUse(key);
        this.firstUses.set(key.id, first);
        first.finally(() => this.firstUses.delete(key.id)).catch(() => undefined);
      }
      await first;
      return;
    }
    this.used.add(key.id);
  }

  private async recordFirstUse(key: AuthenticatedKeyRow): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const first = await markFirstUse(trx, key.id);
      if (first) await recordKeyEvent(trx, 'api_key.first_used', first);
    });
    // Whoever wrote it (this instance or another), the key has been used now.
    key.first_used_at = new Date();
    key.last_used_at = key.first_used_at;
  }

  async flush(): Promise<{ done: number; more: boolean }> {
    if (this.used.size === 0) return { done: 0, more: false };
    const ids = [...this.used];
    this.used.clear();
    await this.knex
      .table('gateway.api_keys')
      .whereIn('id', ids)
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', this.knex.raw("now() - interval '60 seconds'")))
      .update({ last_used_at: this.knex.fn.now() });
    return { done: ids.length, more: false };
  }

  async stop(): Promise<void> {
    await this.flusher.stop();
    await this.flush();
  }
}
