import type { Knex } from 'knex';

const RECORDS = 'gateway.idempotency_records';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface ClaimInput {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  claimId: string;
  /** How long the claim blocks duplicates if this gateway dies before completing it. */
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

/**
 * Claims (API key, Idempotency-Key) for this request in one atomic statement: a new key is
 * inserted; an expired record, or an abandoned claim of the same request, is taken over.
 * Anything else is decided from the existing row. Among concurrent duplicates exactly one
 * statement wins the row, so exactly one request reaches the service.
 */
export async function claim(db: Knex, input: ClaimInput): Promise<ClaimOutcome> {
  // A purge can delete the row between the upsert and the read; one more round settles it.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const result = await db.raw<{ rows: unknown[] }>(
      `insert into ${RECORDS} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
       values (?, ?, ?, ?, 'in_progress', now() + ? * interval '1 millisecond', now() + ? * interval '1 millisecond')
       on conflict (key_id, idempotency_key) do update set
         fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, status = 'in_progress',
         response_status = null, response_headers = null, response_body = null, created_at = now(),
         locked_until = excluded.locked_until, expires_at = excluded.expires_at
       where r.expires_at <= now()
          or (r.status = 'in_progress' and r.locked_until <= now() and r.fingerprint = excluded.fingerprint)
       returning r.key_id`,
      [input.keyId, input.idempotencyKey, input.fingerprint, input.claimId, input.leaseMs, input.retentionMs],
    );
    if (result.rows.length > 0) return { kind: 'claimed' };

    const row = await db
      .table(RECORDS)
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
}

/** Stores what the service answered; only the holder of the claim may complete it. */
export async function complete(
  db: Knex,
  where: { keyId: string; idempotencyKey: string; claimId: string },
  response: StoredResponse,
): Promise<void> {
  await db
    .table(RECORDS)
    .where({ key_id: where.keyId, idempotency_key: where.idempotencyKey, claim_id: where.claimId })
    .update({
      status: 'completed',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
    });
}

/** Gives the key back when the service never ran, so the client can simply retry. */
export async function release(db: Knex, where: { keyId: string; idempotencyKey: string; claimId: string }): Promise<void> {
  await db
    .table(RECORDS)
    .where({ key_id: where.keyId, idempotency_key: where.idempotencyKey, claim_id: where.claimId, status: 'in_progress' })
    .delete();
}

/** Deletes records past their retention; returns how many. */
export async function purgeExpired(db: Knex): Promise<number> {
  return db.table(RECORDS).where('expires_at', '<', db.fn.now()).delete();
}
