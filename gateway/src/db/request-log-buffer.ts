import type { Logger, PassResult } from '@connectivity/platform';
import type { Knex } from 'knex';
import { insertRequestLogs, purgeRequestLogs, trimRequestLogs, type LogScope, type RequestLogEntry } from './request-log-repository.ts';

export interface RequestLogOptions {
  knex: Knex;
  logger: Logger;
  /** Rows kept per account and environment (the newest). */
  keepPerScope: number;
  /** Rows older than this are purged, and never listed. */
  retentionMs: number;
  /** Entries held in memory at most while the database does not take them; the oldest are dropped beyond. */
  maxBuffered?: number;
}

/** A flush writes at most this many rows per statement. */
export const REQUEST_LOG_BATCH = 500;
/** The purge deletes at most this many rows per statement. */
export const REQUEST_LOG_PURGE_BATCH = 1_000;

/**
 * The per-account request log without a write per request: a request costs one array push
 * (`record`); the request-log flusher writes the buffer in batches (`flush`), trimming each
 * account's environment to its newest `keepPerScope` rows in the same pass, and the purger
 * deletes rows past the retention (`purge`). What the trim would delete at once is never written:
 * a flush writes at most the newest `keepPerScope` buffered entries of a scope, so a flood of
 * requests from one key costs the database the rows it keeps, not a row written and deleted per
 * request (record 0197). The flusher is woken early only when half the buffer's bound is used. If
 * the database is down the buffer keeps the newest `maxBuffered` entries; the log is a debugging
 * aid, never worth failing or slowing a request for.
 */
export class RequestLog {
  private buffer: RequestLogEntry[] = [];
  private dropped = 0;
  private full: (() => void) | undefined;
  private readonly options: RequestLogOptions & { maxBuffered: number };

  constructor(options: RequestLogOptions) {
    this.options = { maxBuffered: 10_000, ...options };
  }

  readonly retentionMs = (): number => this.options.retentionMs;

  /** Whom to tell when a full batch is waiting (the flusher); returns what stops telling. */
  whenFull(listener: () => void): () => void {
    this.full = listener;
    return () => {
      if (this.full === listener) this.full = undefined;
    };
  }

  /** Notes an answered request; the hot path's whole cost. */
  record(entry: RequestLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > this.options.maxBuffered) {
      this.buffer.shift();
      this.dropped += 1;
    }
    if (this.buffer.length === this.wakeAt) this.full?.();
  }

  /** Buffered entries that wake the flusher before its interval: enough to be worth a collapse, far from the bound. */
  private get wakeAt(): number {
    return Math.max(REQUEST_LOG_BATCH, Math.floor(this.options.maxBuffered / 2));
  }

  /** Leaves only the newest `keepPerScope` buffered entries of each scope, in their order: the others would be trimmed as soon as written. */
  private collapse(): void {
    const keep = this.options.keepPerScope;
    if (this.buffer.length <= keep) return;
    const seen = new Map<string, number>();
    const kept: RequestLogEntry[] = [];
    for (let i = this.buffer.length - 1; i >= 0; i -= 1) {
      const entry = this.buffer[i] as RequestLogEntry;
      const scope = `${entry.accountId}\n${entry.environment}`;
      const count = (seen.get(scope) ?? 0) + 1;
      seen.set(scope, count);
      if (count <= keep) kept.push(entry);
    }
    if (kept.length < this.buffer.length) this.buffer = kept.reverse();
  }

  /**
   * Writes what is buffered (a statement per `REQUEST_LOG_BATCH` rows), then trims the scopes
   * written to, once. One pass takes the whole buffer and never asks to run again at once: under a
   * flood, requests that arrive while it writes wait for the next interval (or the half-full
   * wake), so the database sees one collapsed write a second, not a write per few requests
   * (record 0266). Also for tests and shutdown.
   */
  async flush(): Promise<PassResult> {
    if (this.buffer.length === 0) return { done: 0, more: false };
    this.collapse();
    const taken = this.buffer;
    this.buffer = [];
    let written = 0;
    try {
      for (; written < taken.length; written += REQUEST_LOG_BATCH) {
        await insertRequestLogs(this.options.knex, taken.slice(written, written + REQUEST_LOG_BATCH));
      }
    } catch (error) {
      // Put back what was not written for the next pass (the insert ignores ids already written),
      // within the bound; the poller backs off. Rows written before the failure are trimmed with
      // their scope's next flush, or purged with the retention.
      this.buffer = [...taken.slice(written), ...this.buffer];
      const excess = this.buffer.length - this.options.maxBuffered;
      if (excess > 0) {
        this.buffer.splice(0, excess);
        this.dropped += excess;
      }
      throw error;
    }
    const scopes = new Map<string, LogScope>();
    for (const e of taken) scopes.set(`${e.accountId}\n${e.environment}`, { accountId: e.accountId, environment: e.environment });
    await trimRequestLogs(this.options.knex, [...scopes.values()], this.options.keepPerScope);
    if (this.dropped > 0) {
      this.options.logger.warn({ dropped: this.dropped }, 'request log entries dropped while the database did not take them');
      this.dropped = 0;
    }
    return { done: taken.length, more: false };
  }

  /** Deletes a batch of rows past the retention. */
  async purge(): Promise<PassResult> {
    const purged = await this.purgeBefore(Date.now() - this.options.retentionMs, REQUEST_LOG_PURGE_BATCH);
    return { done: purged, more: purged === REQUEST_LOG_PURGE_BATCH };
  }

  /** Deletes at most `limit` rows older than `cutoffMs`; resolves with how many (the retention sweep's step). */
  purgeBefore(cutoffMs: number, limit: number): Promise<number> {
    return purgeRequestLogs(this.options.knex, new Date(cutoffMs), limit);
  }

  /** Writes everything buffered, as far as the database takes it; a failure here loses only log lines. */
  async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const { done } = await this.flush().catch(() => ({ done: 0 }));
      if (done === 0) break;
    }
  }
}
