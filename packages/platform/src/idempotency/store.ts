import type { Knex } from 'knex';
import { runPrepared } from '../db/prepared.ts';
import type { Logger } from '../logger.ts';
import type { Poller } from '../work/poller.ts';
import { startRetentionSweep } from '../work/retention.ts';

/** A response as kept against an idempotency key, and replayed as it was. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse } | { kind: 'mismatch' } | { kind: 'in_progress' };

/** Which claim: the record of (API key, Idempotency-Key) while `claimId` holds it. */
export interface ClaimRef {
  keyId: string;
  idempotencyKey: string;
  claimId: string;
}

export interface ClaimInput extends ClaimRef {
  fingerprint: string;
  /** How long the claim blocks duplicates if its holder dies without completing or releasing it. */
  leaseMs: number;
  retentionMs: number;
}

interface RecordRow {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

const whereClaim = (ref: ClaimRef) => ({ key_id: ref.keyId, idempotency_key: ref.idempotencyKey, claim_id: ref.claimId, status: 'in_progress' });

/**
 * Idempotency records in one table (`<schema>.idempotency_records`, one row per API key and
 * Idempotency-Key): each service that changes state keeps one written in the same transaction
 * as the change; the gateway's holds only its reservations (status `forwarded`), which this
 * store purges.
 */
export function idempotencyStore(table: string) {
  // A new key is inserted; an expired record, or an abandoned claim (lease over) of the same
  // request, is taken over; any other existing row stays as it is.
  const claimUpsert = `on conflict (key_id, idempotency_key) do update set
       fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, status = 'in_progress',
       response_status = null, response_headers = null, response_body = null, created_at = now(),
       locked_until = excluded.locked_until, expires_at = excluded.expires_at
     where r.expires_at <= now()
        or (r.status = 'in_progress' and r.locked_until <= now() and r.fingerprint = excluded.fingerprint)`;
  const renew = async (db: Knex, ref: ClaimRef, leaseMs: number): Promise<void> => {
    await db
      .table(table)
      .where(whereClaim(ref))
      .update({ locked_until: db.raw("now() + ? * interval '1 millisecond'", [leaseMs]) });
  };

  const completion = (db: Knex, ref: ClaimRef, response: StoredResponse) =>
    db
      .table(table)
      .where(whereClaim(ref))
      .update({
        status: 'completed',
        response_status: response.status,
        response_headers: JSON.stringify(response.headers),
        response_body: response.body,
      });

  return {
    table,

    /**
     * Claims the key for this request in one atomic statement: a new key is inserted; an expired
     * record, or an abandoned claim (lease over) of the same request, is taken over. Anything else
     * is decided from the existing row. Among concurrent duplicates exactly one statement wins.
     */
    async claim(db: Knex, input: ClaimInput): Promise<ClaimOutcome> {
      // A purge can delete the row between the upsert and the read; one more round settles it.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const result = await runPrepared(
          db,
          `insert into ${table} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
           values (?, ?, ?, ?, 'in_progress', now() + ? * interval '1 millisecond', now() + ? * interval '1 millisecond')
           ${claimUpsert}
           returning r.key_id`,
          [input.keyId, input.idempotencyKey, input.fingerprint, input.claimId, input.leaseMs, input.retentionMs],
        );
        if (result.rows.length > 0) return { kind: 'claimed' };

        const row = await db
          .table(table)
          .where({ key_id: input.keyId, idempotency_key: input.idempotencyKey })
          .first<RecordRow | undefined>('fingerprint', 'status', 'response_status', 'response_headers', 'response_body');
        if (!row) continue;
        if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
        if (row.status === 'in_progress') return { kind: 'in_progress' };
        return {
          kind: 'replay',
          response: { status: row.response_status ?? 500, headers: row.response_headers ?? {}, body: row.response_body ?? '' },
        };
      }
      return { kind: 'in_progress' };
    },

    /**
     * `claim` for several keys, all different, in ONE statement: 'claimed' for each key it
     * claimed, undefined for the others (a duplicate, a replay, or a row committed after the
     * statement's snapshot), which `claim` then decides. Rows are written in key order, so two
     * batches that share keys lock them in the same order and never deadlock.
     */
    async claimMany(db: Knex, inputs: readonly ClaimInput[]): Promise<({ kind: 'claimed' } | undefined)[]> {
      const rows = inputs.map((input) => ({
        key_id: input.keyId,
        idempotency_key: input.idempotencyKey,
        fingerprint: input.fingerprint,
        claim_id: input.claimId,
        lease_ms: input.leaseMs,
        retention_ms: input.retentionMs,
      }));
      const { rows: claimed } = await runPrepared<{ claim_id: string }>(
        db,
        `insert into ${table} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
         select key_id, idempotency_key, fingerprint, claim_id, 'in_progress', now() + lease_ms * interval '1 millisecond', now() + retention_ms * interval '1 millisecond'
         from jsonb_to_recordset(?::jsonb) as i(key_id text, idempotency_key text, fingerprint text, claim_id text, lease_ms bigint, retention_ms bigint)
         order by key_id, idempotency_key
         ${claimUpsert}
         returning r.claim_id`,
        [JSON.stringify(rows)],
      );
      const won = new Set(claimed.map((row) => row.claim_id));
      return inputs.map((input) => (won.has(input.claimId) ? { kind: 'claimed' as const } : undefined));
    },

    /** Stores the answer; only the holder of a claim still in progress may. True when it did. */
    async complete(db: Knex, ref: ClaimRef, response: StoredResponse): Promise<boolean> {
      return (await completion(db, ref, response)) > 0;
    },

    /** `complete` as a write not yet run, e.g. for the one statement that makes the change. */
    completion,

    /** Gives the key back (nothing was done, or nothing worth replaying), so a retry runs again. */
    async release(db: Knex, ref: ClaimRef): Promise<void> {
      await db.table(table).where(whereClaim(ref)).delete();
    },

    /** Pushes the lease of a claim still held one `leaseMs` ahead. */
    renew,

    /**
     * Keeps the claim's lease alive while its holder works (renewed at a third of the lease), so
     * the lease can be short: a holder that dies loses it within `leaseMs`. Returns the stop.
     */
    hold(db: Knex, ref: ClaimRef, leaseMs: number, onError?: (error: unknown) => void): () => void {
      const timer = setInterval(
        () => {
          renew(db, ref, leaseMs).catch((error: unknown) => onError?.(error));
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      );
      timer.unref();
      return () => clearInterval(timer);
    },

    /** Deletes records past their retention, a batch at a time; returns how many. */
    async purgeExpired(db: Knex, batchSize = 1_000): Promise<number> {
      const result = await db.raw<{ rowCount: number }>(`delete from ${table} where ctid in (select ctid from ${table} where expires_at < now() limit ?)`, [
        batchSize,
      ]);
      return result.rowCount;
    },
  };
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>;

/**
 * Whether an answer is kept for replay. Not kept: answers that provably changed nothing and
 * that a retry may well turn into a success — a 5xx (the owning service's own record holds the
 * answer of any change that did commit) and anything sent with `Retry-After`.
 */
export const isReplayable = (response: Pick<StoredResponse, 'status' | 'headers'>): boolean =>
  response.status < 500 && response.headers['retry-after'] === undefined && !isNoStore(response.headers);

/**
 * An answer marked `Cache-Control: no-store` (one that shows a secret) is kept by no one but the
 * owning service, sealed: the edge passes a retry on, and the service replays it.
 */
export const isNoStore = (headers: Record<string, string>): boolean => /(^|,)\s*no-store\s*(,|$)/i.test(headers['cache-control'] ?? '');

/** Deletes idempotency records past their 24 hours (each row carries its `expires_at`), a batch per pass, every `intervalMs`, on the retention sweep. */
export function startIdempotencyPurge(options: { knex: Knex; store: IdempotencyStore; logger: Logger; intervalMs?: number }): Poller {
  const intervalMs = options.intervalMs ?? 10 * 60_000;
  return startRetentionSweep({
    name: `idempotency purge (${options.store.table})`,
    logger: options.logger,
    intervalMs,
    firstDelayMs: intervalMs,
    batch: 1_000,
    steps: [{ what: 'records', deleteBatch: (_cutoffMs, limit) => options.store.purgeExpired(options.knex, limit) }],
  });
}
