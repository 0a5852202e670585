import type { Knex } from 'knex';
import type { Bus } from '../bus/types.ts';
import { OUTBOX_TABLE } from './migration.ts';

/** The subset of pino the relay uses, so any pino logger (or a test double) fits. */
export interface OutboxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface OutboxRelayOptions {
  knex: Knex;
  bus: Bus;
  /** The service's schema, holding its `outbox` table. */
  schema: string;
  /** Pause between polls when nothing is due. */
  pollIntervalMs?: number;
  /** Rows locked and published per transaction. */
  batchSize?: number;
  /** Delay before the first retry of a row whose publish failed; doubles per attempt. */
  baseBackoffMs?: number;
  /** Upper bound of the retry delay. */
  maxBackoffMs?: number;
  /** Published rows older than this are deleted. */
  retentionMs?: number;
  /** How often the relay deletes old published rows. */
  pruneIntervalMs?: number;
  /** How long claimed rows stay reserved for this relay while it publishes them; a crashed relay's rows are retried after it. */
  leaseMs?: number;
  logger?: OutboxLogger;
}

export interface OutboxRelay {
  /** Stops polling and waits for the batch in flight; `flush()` still works afterwards. */
  stop(): Promise<void>;
  /** Publishes until nothing due is left; resolves with the number of rows published. */
  flush(): Promise<number>;
  /** Polls now instead of at the next interval, e.g. right after a commit that added rows. */
  wake(): void;
  /** Deletes published rows older than the retention; resolves with how many. */
  prune(): Promise<number>;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string> | null;
  attempts: number;
}

interface TickResult {
  selected: number;
  published: number;
}

const DAY_MS = 86_400_000;

/**
 * Publishes a service's outbox rows to the bus. Each tick locks a batch of due rows with
 * `FOR UPDATE SKIP LOCKED` and leases them (so several relays, in one process or many, never
 * publish a row concurrently), then publishes them in order with message id = event id outside
 * any transaction, and marks them published. A crash after publishing but before marking leaves
 * the rows pending: after the lease they are published again and the bus drops them as
 * duplicates of the same id. A failed publish is retried later with exponential backoff and
 * jitter; the other rows of the batch go on.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const {
    knex,
    bus,
    schema,
    pollIntervalMs = 200,
    batchSize = 100,
    baseBackoffMs = 1_000,
    maxBackoffMs = 60_000,
    retentionMs = 7 * DAY_MS,
    pruneIntervalMs = 60 * 60_000,
    leaseMs = 30_000,
    logger,
  } = options;

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let currentPoll: Promise<void> | undefined;
  let wakeRequested = false;
  let consecutiveErrors = 0;
  let lastPruneAt = 0;
  // Ticks of one relay run one after another: a flush must not miss rows because the poller
  // holds them locked (SKIP LOCKED would make them invisible to it).
  let queue: Promise<unknown> = Promise.resolve();

  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  /**
   * Takes up to a batch of due rows for this relay: locked with SKIP LOCKED just long enough to
   * push their `next_attempt_at` one lease ahead, so no other relay takes them while they are
   * published, and no transaction stays open across the remote calls to the bus.
   */
  async function claim(): Promise<OutboxRow[]> {
    return knex.transaction(async (trx) => {
      const rows = (await trx
        .withSchema(schema)
        .from(OUTBOX_TABLE)
        .select('id', 'subject', 'payload', 'headers', 'attempts')
        .whereNull('published_at')
        .andWhere('next_attempt_at', '<=', trx.fn.now())
        .orderBy([{ column: 'created_at' }, { column: 'id' }])
        .limit(batchSize)
        .forUpdate()
        .skipLocked()) as OutboxRow[];
      if (rows.length > 0) {
        await trx
          .withSchema(schema)
          .table(OUTBOX_TABLE)
          .whereIn(
            'id',
            rows.map((row) => row.id),
          )
          .update({ next_attempt_at: trx.raw("now() + ? * interval '1 millisecond'", [leaseMs]) });
      }
      return rows;
    });
  }

  async function tick(): Promise<TickResult> {
    const rows = await claim();
    const published: string[] = [];
    const failed: { row: OutboxRow; error: unknown }[] = [];
    for (const row of rows) {
      try {
        const result = await bus.publish({
          id: row.id,
          subject: row.subject,
          payload: row.payload,
          headers: row.headers ?? {},
        });
        if (result.duplicate) {
          logger?.info({ eventId: row.id, subject: row.subject }, 'outbox event was already on the bus');
        }
        published.push(row.id);
      } catch (error) {
        failed.push({ row, error });
      }
    }

    // A crash before these writes leaves the rows claimed until the lease ends; they are then
    // published again and the bus drops them as duplicates of the same message id.
    if (published.length > 0) {
      await knex.withSchema(schema).table(OUTBOX_TABLE).whereIn('id', published).update({ published_at: knex.fn.now(), last_error: null });
    }
    for (const { row, error } of failed) {
      const attempts = row.attempts + 1;
      const delayMs = backoffMs(attempts, baseBackoffMs, maxBackoffMs);
      const message = errorMessage(error);
      logger?.warn({ eventId: row.id, subject: row.subject, attempts, retryInMs: delayMs, err: message }, 'outbox publish failed; will retry');
      await knex
        .withSchema(schema)
        .table(OUTBOX_TABLE)
        .where('id', row.id)
        .update({
          attempts,
          next_attempt_at: knex.raw("now() + ? * interval '1 millisecond'", [delayMs]),
          last_error: message.slice(0, 2_000),
        });
    }
    return { selected: rows.length, published: published.length };
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const { selected, published } = await tick();
      total += published;
      // Stop when nothing is due, or when a whole batch failed: the bus is probably down and
      // those rows now wait for their backoff; walking the whole backlog now would be futile.
      if (selected === 0 || published === 0) return total;
    }
  }

  async function pruneNow(): Promise<number> {
    return knex
      .withSchema(schema)
      .table(OUTBOX_TABLE)
      .whereNotNull('published_at')
      .andWhere('published_at', '<', knex.raw("now() - ? * interval '1 millisecond'", [retentionMs]))
      .delete();
  }

  async function poll(): Promise<void> {
    timer = undefined;
    polling = true;
    wakeRequested = false;
    let delay = pollIntervalMs;
    try {
      await serialized(drain);
      if (Date.now() - lastPruneAt >= pruneIntervalMs) {
        lastPruneAt = Date.now();
        const pruned = await serialized(pruneNow);
        if (pruned > 0) logger?.info({ schema, pruned }, 'pruned published outbox rows');
      }
      if (consecutiveErrors > 0) logger?.info({ schema }, 'outbox relay recovered');
      consecutiveErrors = 0;
    } catch (error) {
      consecutiveErrors += 1;
      // Back off while the database is unreachable instead of logging five errors a second.
      delay = backoffMs(consecutiveErrors, pollIntervalMs, maxBackoffMs);
      logger?.error({ schema, err: errorMessage(error), retryInMs: delay }, 'outbox relay tick failed');
    } finally {
      polling = false;
    }
    schedule(wakeRequested ? 0 : delay);
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      currentPoll = poll();
    }, delayMs);
    // The relay alone must not keep a process (or a test worker) alive.
    timer.unref();
  }

  // The first poll waits one interval like the others, so a relay's flush() right after start
  // (tests, a shutdown) is not raced by a poll; call wake() to publish at once.
  schedule(pollIntervalMs);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await currentPoll;
      await queue;
    },
    flush: () => serialized(drain),
    wake() {
      if (stopped) return;
      if (polling) {
        wakeRequested = true;
        return;
      }
      if (timer) clearTimeout(timer);
      schedule(0);
    },
    prune: () => serialized(pruneNow),
  };
}

/** Exponential backoff with jitter: a random delay in [d/2, d], d = base * 2^(attempt-1), capped. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(ceiling / 2 + Math.random() * (ceiling / 2)));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
