import { groupCommit, idempotencyStore, runPrepared } from '@connectivity/platform';
import type { Knex } from 'knex';

export type { StoredResponse } from '@connectivity/platform';

const TABLE = 'gateway.idempotency_records';

/** The gateway's idempotency records (expiry and purge as every service's); see `reserveIdempotencyKey`. */
export const gatewayIdempotency = idempotencyStore(TABLE);

export type Reservation = 'first_use' | 'same_request' | 'other_request';

export interface ReservationInput {
  keyId: string;
  idempotencyKey: string;
  fingerprint: string;
  retentionMs: number;
}

// A new key, or one past its retention, is (re)written; any other existing row stays as it is.
const UPSERT = `on conflict (key_id, idempotency_key) do update set
   fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, status = excluded.status,
   response_status = null, response_headers = null, response_body = null, created_at = now(),
   locked_until = excluded.locked_until, expires_at = excluded.expires_at
 where r.expires_at <= now()`;

const decide = (input: ReservationInput, fingerprint: string | null): Reservation =>
  fingerprint === null ? 'first_use' : fingerprint === input.fingerprint ? 'same_request' : 'other_request';

/**
 * Notes that (API key, Idempotency-Key) is used for the request with `fingerprint`, in one
 * statement: a new key (or one past its retention) is recorded; an existing one says whether it
 * was used for this same request or another. Among concurrent first uses exactly one inserts.
 */
export async function reserveIdempotencyKey(db: Knex, input: ReservationInput): Promise<Reservation> {
  // A row committed by a concurrent first use after this statement's snapshot is not seen by the
  // read below: one more round sees it.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const { rows } = await runPrepared<{ fingerprint: string | null }>(
      db,
      `with reserved as (
         insert into ${TABLE} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
         values (?, ?, ?, '', 'forwarded', now(), now() + ? * interval '1 millisecond')
         ${UPSERT}
         returning 1)
       select null as fingerprint from reserved
       union all
       select fingerprint from ${TABLE} where key_id = ? and idempotency_key = ? and not exists (select 1 from reserved)`,
      [input.keyId, input.idempotencyKey, input.fingerprint, input.retentionMs, input.keyId, input.idempotencyKey],
    );
    const row = rows[0];
    if (row) return decide(input, row.fingerprint);
  }
  // Never seen in practice (a purge would have to delete the row between every round): the
  // request goes on, and its service's own record still guards against a second change.
  return 'same_request';
}

/**
 * `reserveIdempotencyKey` for several keys, all different, in ONE statement; undefined for a key
 * the statement could not decide (a row committed by a concurrent first use after its snapshot),
 * which `reserveIdempotencyKey` then settles. Rows are written in key order, so two batches that
 * share keys lock them in the same order and never deadlock.
 */
export async function reserveIdempotencyKeys(db: Knex, inputs: readonly ReservationInput[]): Promise<(Reservation | undefined)[]> {
  const rows = inputs.map((input, ord) => ({
    ord,
    key_id: input.keyId,
    idempotency_key: input.idempotencyKey,
    fingerprint: input.fingerprint,
    retention_ms: input.retentionMs,
  }));
  const { rows: found } = await runPrepared<{ ord: number; reserved: boolean; fingerprint: string | null }>(
    db,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as i(ord int, key_id text, idempotency_key text, fingerprint text, retention_ms bigint)
     ), reserved as (
       insert into ${TABLE} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
       select key_id, idempotency_key, fingerprint, '', 'forwarded', now(), now() + retention_ms * interval '1 millisecond'
       from input order by key_id, idempotency_key
       ${UPSERT}
       returning r.key_id, r.idempotency_key)
     select i.ord, s.key_id is not null as reserved,
       -- A lookup by primary key per input row: a join would be planned as a scan of the whole
       -- table (the planner expects 100 rows from jsonb_to_recordset).
       (select e.fingerprint from ${TABLE} e where s.key_id is null and e.key_id = i.key_id and e.idempotency_key = i.idempotency_key) as fingerprint
     from input i
     left join reserved s on s.key_id = i.key_id and s.idempotency_key = i.idempotency_key`,
    [JSON.stringify(rows)],
    // Planned for each call, so the lookup is planned for the table as it is (see `PreparedOptions.replan`).
    { replan: true },
  );
  const outcomes: (Reservation | undefined)[] = inputs.map(() => undefined);
  for (const row of found) {
    const input = inputs[row.ord];
    if (!input) continue;
    if (row.reserved) outcomes[row.ord] = 'first_use';
    else if (row.fingerprint !== null) outcomes[row.ord] = decide(input, row.fingerprint);
  }
  return outcomes;
}

export interface KeyReservations {
  reserve(input: ReservationInput): Promise<Reservation>;
}

// Reservations that arrive while one round trip is under way share the next one.
const MAX_BATCH = 32;

/**
 * Reservations group-committed: one statement per round trip for every request that arrived
 * during the last one (see `groupCommit`).
 */
export function keyReservations(db: Knex): KeyReservations {
  const batcher = groupCommit<ReservationInput, Reservation>({
    name: 'idempotency key reservation',
    max: MAX_BATCH,
    keyOf: (input) => `${input.keyId}\u0000${input.idempotencyKey}`,
    one: (input) => reserveIdempotencyKey(db, input),
    many: (inputs) => reserveIdempotencyKeys(db, inputs),
  });
  return { reserve: (input) => batcher.add(input) };
}
