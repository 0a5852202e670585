import { startPoller, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { pruneFinishedReplays } from '../db/replays-repository.ts';
import { pruneEvents } from '../db/retention-repository.ts';

export interface RetentionOptions {
  /** How long events (with their deliveries and attempts) are kept. */
  keepMs: number;
  /** How often pruning runs. */
  intervalMs: number;
  /** Events deleted per transaction. */
  batchSize: number;
}

/**
 * Prunes what outlived the retention (events, and replays that finished), on the platform's
 * poller every `intervalMs`, a batch per pass. Batches skip rows another instance holds, so running several at once only shares the work.
 */
export function startRetention(options: RetentionOptions & { knex: Knex; logger: Logger; now?: () => number }): Poller {
  const now = options.now ?? Date.now;
  return startPoller({
    name: 'event retention',
    intervalMs: options.intervalMs,
    // The first pass soon after start, so a restarted instance catches up.
    firstDelayMs: Math.min(options.intervalMs, 1_000),
    logger: options.logger,
    async pass() {
      const before = Math.floor((now() - options.keepMs) / 1000);
      const pruned = await pruneEvents(options.knex, before, options.batchSize);
      if (pruned > 0) options.logger.info({ events: pruned }, 'pruned events past their retention, with their deliveries and attempts');
      // Finished replays are kept as long as the events they replayed.
      const replays = await pruneFinishedReplays(options.knex, new Date(before * 1000), options.batchSize);
      return { done: pruned + replays, more: pruned === options.batchSize || replays === options.batchSize };
    },
  });
}
