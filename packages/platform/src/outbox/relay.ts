import type { Knex } from 'knex';
import type { Bus } from '../bus/types.ts';
import { domainMetrics, observeGauge } from '../telemetry/metrics.ts';
import { runPrepared } from '../db/prepared.ts';
import { jitteredDelayMs } from '../work/backoff.ts';
import { claimDue } from '../work/claim.ts';
import { inBackgroundSpan, linksTo } from '../work/links.ts';
import { startPoller } from '../work/poller.ts';
import { startRetentionSweep } from '../work/retention.ts';
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
  /** Pause between polls when nothing is due (commits that add rows wake the relay at once). */
  pollIntervalMs?: number;
  /**
   * A commit wakes the relay no sooner than this after its last pass began (the poller's
   * `wakeGapMs`): under load a pass publishes what several commits added; an event after a
   * quiet spell goes at once.
   */
  wakeGapMs?: number;
  /** Rows claimed and published per pass. */
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
/** Published rows deleted per statement by the retention. */
const PRUNE_BATCH = 1_000;
// Adds at most this to an event's way to its webhook under a steady stream (p99 budget 250 ms),
// and turns a pass per order into a pass per few orders.
const DEFAULT_WAKE_GAP_MS = 10;

/** The work signal of a schema's outbox: raised after a commit that added rows (see `Outbox.add`). */
export const outboxSignal = (schema: string): string => `outbox:${schema}`;

/**
 * Publishes a service's outbox rows to the bus, on the platform's poller: woken the moment a
 * transaction that added rows commits, polling otherwise. Each pass claims a batch of due rows
 * with a lease (`claimDue`: several relays, in one process or many, never publish a row
 * concurrently), publishes them in order with message id = event id outside any transaction,
 * and marks them published. A crash after publishing but before marking leaves the rows pending:
 * after the lease they are published again and the bus drops them as duplicates of the same id.
 * A failed publish is retried later with exponential backoff and jitter; the rest of the batch
 * goes on. Published rows past the retention are pruned every `pruneIntervalMs`, a batch per
 * statement, on the platform's retention sweep beside the relay's poller.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const {
    knex,
    bus,
    schema,
    pollIntervalMs = 200,
    wakeGapMs = DEFAULT_WAKE_GAP_MS,
    batchSize = 100,
    baseBackoffMs = 1_000,
    maxBackoffMs = 60_000,
    retentionMs = 7 * DAY_MS,
    pruneIntervalMs = 60 * 60_000,
    leaseMs = 30_000,
    logger,
  } = options;
  const table = `${schema}.${OUTBOX_TABLE}`;

  const claim = async (): Promise<OutboxRow[]> => {
    const rows = await claimDue<OutboxRow & { created_at: Date }>(knex, {
      table,
      key: 'id',
      due: { sql: 'published_at is null and next_attempt_at <= now()', bindings: [] },
      orderBy: 'created_at, id',
      limit: batchSize,
      set: { sql: "next_attempt_at = now() + ? * interval '1 millisecond'", bindings: [leaseMs] },
      returning: ['id', 'subject', 'payload', 'headers', 'attempts', 'created_at'],
    });
    // Published in the order they were written.
    return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
  };

  async function publishBatch(): Promise<TickResult> {
    const rows = await claim();
    if (rows.length === 0) return { selected: 0, published: 0 };
    // The batch has a span of its own, linked to the requests whose events it publishes; each
    // publish stays in the trace of its own request.
    return inBackgroundSpan(
      'outbox relay publish',
      linksTo(rows.map((row) => row.headers ?? {})),
      { 'outbox.schema': schema, 'outbox.rows': rows.length },
      () => publishRows(rows),
    );
  }

  async function publishRows(rows: OutboxRow[]): Promise<TickResult> {
    const published: string[] = [];
    const failed: { row: OutboxRow; error: unknown }[] = [];
    // Sent in order on one connection without waiting for each acknowledgement in turn: the bus
    // keeps their order, and the batch costs one round of acknowledgements, not one per row.
    const results = await Promise.allSettled(
      rows.map((row) => bus.publish({ id: row.id, subject: row.subject, payload: row.payload, headers: row.headers ?? {} })),
    );
    for (const [index, result] of results.entries()) {
      const row = rows[index];
      if (!row) continue;
      if (result.status === 'rejected') {
        failed.push({ row, error: result.reason });
        continue;
      }
      if (result.value.duplicate) logger?.info({ eventId: row.id, subject: row.subject }, 'outbox event was already on the bus');
      published.push(row.id);
    }
    // A crash before these writes leaves the rows claimed until the lease ends; they are then
    // published again and the bus drops them as duplicates of the same message id.
    if (published.length > 0) {
      // The ids as one JSON binding, so the text is the same whatever the batch's size; planned
      // on each call (see `PreparedOptions.replan`).
      await runPrepared(
        knex,
        `update ${table} set published_at = now(), last_error = null where id in (select jsonb_array_elements_text(?::jsonb))`,
        [JSON.stringify(published)],
        {
          replan: true,
        },
      );
    }
    for (const { row, error } of failed) {
      const attempts = row.attempts + 1;
      const delayMs = backoffMs(attempts, baseBackoffMs, maxBackoffMs);
      const message = errorMessage(error);
      domainMetrics.outboxPublishFailed(schema);
      logger?.warn({ eventId: row.id, subject: row.subject, attempts, retryInMs: delayMs, err: message }, 'outbox publish failed; will retry');
      await knex
        .table(table)
        .where('id', row.id)
        .update({ attempts, next_attempt_at: knex.raw("now() + ? * interval '1 millisecond'", [delayMs]), last_error: message.slice(0, 2_000) });
    }
    return { selected: rows.length, published: published.length };
  }

  /** Deletes at most `limit` published rows older than `cutoffMs`; resolves with how many. */
  const pruneBatch = (cutoffMs: number, limit: number): Promise<number> =>
    knex
      .table(table)
      .whereIn('id', knex.table(table).select('id').whereNotNull('published_at').andWhere('published_at', '<', new Date(cutoffMs)).limit(limit))
      .delete();
  const pruneNow = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const pruned = await pruneBatch(Date.now() - retentionMs, PRUNE_BATCH);
      total += pruned;
      if (pruned < PRUNE_BATCH) return total;
    }
  };

  const poller = startPoller({
    name: `outbox relay (${schema})`,
    intervalMs: pollIntervalMs,
    wakeGapMs,
    maxBackoffMs,
    wakeOn: [outboxSignal(schema)],
    ...(logger && { logger }),
    async pass() {
      const { selected, published } = await publishBatch();
      // A whole batch that failed means the bus is probably down: those rows wait for their
      // backoff; walking the whole backlog now would be futile.
      return { done: published, more: selected === batchSize && published > 0 };
    },
  });

  const retention = startRetentionSweep({
    name: `outbox retention (${schema})`,
    ...(logger && { logger }),
    intervalMs: pruneIntervalMs,
    keepMs: retentionMs,
    batch: PRUNE_BATCH,
    steps: [{ what: 'published rows', deleteBatch: pruneBatch }],
  });

  const stopGauges = observeOutbox(knex, schema, table);

  return {
    async stop() {
      stopGauges();
      await retention.stop();
      await poller.stop();
    },
    flush: () => poller.runOnce(),
    wake: () => poller.wake(),
    prune: pruneNow,
  };
}

/** Rows pending and the age of the oldest, per schema, read when metrics are collected. */
function observeOutbox(knex: Knex, schema: string, table: string): () => void {
  let latest: Promise<{ pending: number; oldest: number }> | undefined;
  let latestAt = 0;
  // Both gauges read one query, at most once a second.
  const read = () => {
    if (!latest || Date.now() - latestAt > 1_000) {
      latestAt = Date.now();
      latest = knex
        .table(table)
        .whereNull('published_at')
        .first<{ pending: string; oldest: number | null }>(knex.raw('count(*) as pending'), knex.raw('extract(epoch from now() - min(created_at)) as oldest'))
        .then((row) => ({ pending: Number(row?.pending ?? 0), oldest: Number(row?.oldest ?? 0) }));
    }
    return latest;
  };
  const stops = [
    observeGauge('connectivity.outbox.pending', { description: 'Outbox rows not yet published.' }, async () => [
      { value: (await read()).pending, attributes: { schema } },
    ]),
    observeGauge('connectivity.outbox.oldest_age', { description: 'Age of the oldest unpublished outbox row.', unit: 's' }, async () => [
      { value: (await read()).oldest, attributes: { schema } },
    ]),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Exponential backoff with jitter (the platform's one rule: work/backoff.ts). */
export const backoffMs = jitteredDelayMs;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
