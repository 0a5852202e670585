import { deleteLockedBatch, startRetentionSweep, type Logger, type Poller, type RetentionStep } from '@connectivity/platform';
import type { Knex } from 'knex';
import { pruneFinishedReplays } from '../db/replays-repository.ts';
import { deleteEvents, eventsPastRetention } from '../db/retention-repository.ts';

export interface RetentionOptions {
  knex: Knex;
  logger: Logger;
  /** How long events (with their deliveries and attempts) are kept. */
  keepMs: number;
  /** How long test events are kept, when sooner than `keepMs` (record 0213). */
  keepTestMs?: number;
  /** How often pruning runs. */
  intervalMs: number;
  /** Events deleted per transaction. */
  batchSize: number;
  now?: () => number;
}

/**
 * Prunes what outlived the retention (events, and replays that finished), on the platform's
 * retention sweep every `intervalMs`, a batch per step and pass. Each batch of events is locked
 * and deleted, with their deliveries, attempts and stream entries, in one transaction; rows
 * another instance holds are skipped, so running several at once only shares the work.
 */
export function startRetention(options: RetentionOptions): Poller {
  const { knex } = options;
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const events = (environment?: 'test') => (cutoffMs: number, limit: number) =>
    deleteLockedBatch(knex, { due: (trx) => eventsPastRetention(trx, seconds(cutoffMs), environment), limit, remove: deleteEvents });
  const steps: RetentionStep[] = [{ what: 'events', deleteBatch: events() }];
  // Test events past the test data retention, when it is the shorter (record 0213).
  if (options.keepTestMs !== undefined && options.keepTestMs < options.keepMs)
    steps.push({ what: 'test events', keepMs: options.keepTestMs, deleteBatch: events('test') });
  // Finished replays are kept as long as the events they replayed.
  steps.push({ what: 'replays', deleteBatch: (cutoffMs, limit) => pruneFinishedReplays(knex, new Date(seconds(cutoffMs) * 1000), limit) });
  return startRetentionSweep({
    name: 'event retention',
    logger: options.logger,
    intervalMs: options.intervalMs,
    keepMs: options.keepMs,
    batch: options.batchSize,
    ...(options.now && { now: options.now }),
    steps,
  });
}
