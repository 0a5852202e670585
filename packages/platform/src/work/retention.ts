import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { startPoller, type Poller } from './poller.ts';
import { sweepDue } from './sweep.ts';

/** One kind of row a retention sweep deletes. */
export interface RetentionStep {
  /** What the rows are, for the log line: `reports`, `events`, `orders`. */
  what: string;
  /** How long the rows are kept; the sweep's `keepMs` unless given. */
  keepMs?: number;
  /**
   * Deletes at most `limit` rows older than `cutoffMs` (ms since the epoch) and resolves with how
   * many it deleted: a full batch means more may be due. `deleteLockedBatch` is the usual body.
   */
  deleteBatch(cutoffMs: number, limit: number): Promise<number>;
}

export interface RetentionSweepOptions {
  /** The worker's name, for logs. */
  name: string;
  logger?: Pick<Logger, 'error' | 'info'>;
  /** How often a sweep runs (at once again while a step deletes full batches). */
  intervalMs: number;
  /** How long rows are kept (a step may keep its rows for a time of its own). */
  keepMs?: number;
  /** Rows deleted per step and pass: one statement (or one transaction) each. */
  batch: number;
  /** The kinds of rows, in order: a step runs once those before it left no full batch behind. */
  steps: readonly RetentionStep[];
  /** Delay before the first sweep; default a second (or the interval if shorter), so a restarted instance catches up. */
  firstDelayMs?: number;
  now?: () => number;
}

/**
 * The one shape of every retention: rows past their time deleted a batch per statement, on the
 * platform's poller, so a backlog (a week of callbacks, a month of events) never becomes one long
 * transaction, and passes follow each other at once while batches come back full. The steps run in
 * order; a full batch ends the pass early (the next runs at once), so a step that depends on the
 * ones before it (test clocks after their orders) sees them done. One log line per pass that
 * deleted anything.
 */
export function startRetentionSweep(options: RetentionSweepOptions): Poller {
  const now = options.now ?? Date.now;
  return startPoller({
    name: options.name,
    intervalMs: options.intervalMs,
    firstDelayMs: options.firstDelayMs ?? Math.min(options.intervalMs, 1_000),
    ...(options.logger && { logger: options.logger }),
    async pass() {
      const deleted: Record<string, number> = {};
      let done = 0;
      let more = false;
      for (const step of options.steps) {
        const keepMs = step.keepMs ?? options.keepMs ?? 0;
        const count = await step.deleteBatch(now() - keepMs, options.batch);
        if (count > 0) deleted[step.what] = (deleted[step.what] ?? 0) + count;
        done += count;
        if (count >= options.batch) {
          more = true;
          break;
        }
      }
      if (done > 0) options.logger?.info({ worker: options.name, ...deleted }, 'deleted rows past their retention');
      return { done, more };
    },
  });
}

/**
 * A batch deleted under lock: up to `limit` due rows locked (`FOR UPDATE SKIP LOCKED`, so
 * instances side by side share the work and never wait on each other) and handed to `remove`
 * with their ids, in one transaction; resolves with how many were taken. For rows whose deletion
 * reaches other rows (an event's deliveries and attempts) or must see them as they are.
 */
export async function deleteLockedBatch(
  knex: Knex,
  spec: { due: (trx: Knex.Transaction) => Knex.QueryBuilder; limit: number; remove: (trx: Knex.Transaction, ids: string[]) => Promise<unknown> },
): Promise<number> {
  const { taken } = await sweepDue<{ id: string }, unknown>(knex, {
    due: spec.due,
    limit: spec.limit,
    apply: (trx, rows) =>
      spec.remove(
        trx,
        rows.map((row) => row.id),
      ),
  });
  return taken;
}
