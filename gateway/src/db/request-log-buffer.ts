import { startPoller, type Logger, type Poller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { insertRequestLogs, purgeRequestLogs, trimRequestLogs, type LogScope, type RequestLogEntry } from './request-log-repository.ts';

export interface RequestLogOptions {
  knex: Knex;
  logger: Logger;
  /** How often the buffer is written (the latency of a request's appearance in the log). */
  flushMs: number;
  /** Rows kept per account and environment (the newest). */
  keepPerScope: number;
  /** Rows older than this are purged, and never listed. */
  retentionMs: number;
  /** Entries held in memory at most while the database does not take them; the oldest are dropped beyond. */
  maxBuffered?: number;
}

// A flush writes at most this many rows per statement, and a full buffer wakes the flusher early.
const BATCH = 500;

/**
 * The per-account request log without a write per request: a request costs one array push
 * (`record`), and a poller writes the buffer in batches every `flushMs`, trims each account's
 * environment to its newest `keepPerScope` rows in the same pass, and purges rows past the
 * retention now and then. If the database is down the buffer keeps the newest `maxBuffered`
 * entries; the log is a debugging aid, never worth failing or slowing a request for.
 */
export class RequestLog {
  private buffer: RequestLogEntry[] = [];
  private dropped = 0;
  private readonly flusher: Poller;
  private readonly purger: Poller;
  private readonly options: RequestLogOptions & { maxBuffered: number };

  constructor(options: RequestLogOptions) {
    this.options = { maxBuffered: 10_000, ...options };
    this.flusher = startPoller({ name: 'request log', intervalMs: options.flushMs, logger: options.logger, pass: () => this.flush() });
    this.purger = startPoller({
      name: 'request log retention',
      intervalMs: Math.min(10 * 60_000, Math.max(1_000, options.retentionMs / 10)),
      logger: options.logger,
      pass: () => this.purge(),
    });
  }

  readonly retentionMs = (): number => this.options.retentionMs;

  /** Notes an answered request; the hot path's whole cost. */
  record(entry: RequestLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length > this.options.maxBuffered) {
      this.buffer.shift();
      this.dropped += 1;
    }
    if (this.buffer.length === BATCH) this.flusher.wake();
  }

  /** Writes what is buffered, then trims the scopes written to. Also for tests and shutdown. */
  async flush(): Promise<{ done: number; more: boolean }> {
    if (this.buffer.length === 0) return { done: 0, more: false };
    const batch = this.buffer.splice(0, BATCH);
    try {
      await insertRequestLogs(this.options.knex, batch);
    } catch (error) {
      // Put back for the next pass (the insert ignores ids already written), within the bound; the poller backs off.
      this.buffer = [...batch, ...this.buffer];
      const excess = this.buffer.length - this.options.maxBuffered;
      if (excess > 0) {
        this.buffer.splice(0, excess);
        this.dropped += excess;
      }
      throw error;
    }
    const scopes = new Map<string, LogScope>();
    for (const e of batch) scopes.set(`${e.accountId}\n${e.environment}`, { accountId: e.accountId, environment: e.environment });
    await trimRequestLogs(this.options.knex, [...scopes.values()], this.options.keepPerScope);
    if (this.dropped > 0) {
      this.options.logger.warn({ dropped: this.dropped }, 'request log entries dropped while the database did not take them');
      this.dropped = 0;
    }
    return { done: batch.length, more: this.buffer.length > 0 };
  }

  async purge(): Promise<{ done: number; more: boolean }> {
    const purged = await purgeRequestLogs(this.options.knex, new Date(Date.now() - this.options.retentionMs), 1_000);
    return { done: purged, more: purged === 1_000 };
  }

  async stop(): Promise<void> {
    await this.flusher.stop();
    await this.purger.stop();
    // Whatever is buffered is written before the process goes; a failure here loses only log lines.
    while (this.buffer.length > 0) {
      const { done } = await this.flush().catch(() => ({ done: 0 }));
      if (done === 0) break;
    }
  }
}
