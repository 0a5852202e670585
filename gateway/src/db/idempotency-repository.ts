import { idempotencyStore, runPrepared } from '@connectivity/platform';
import type { Knex } from 'knex';

export type { StoredResponse } from '@connectivity/platform';

const TABLE = 'gateway.idempotency_records';

/** The gateway's idempotency records (expiry and purge as every service's); see `reserveIdempotencyKey`. */
export const gatewayIdempotency = idempotencyStore(TABLE);

export type Reservation = 'first_use' | 'same_request' | 'other_request';

/**
 * Notes that (API key, Idempotency-Key) is used for the request with `fingerprint`, in one
 * statement: a new key (or one past its retention) is recorded; an existing one says whether it
 * was used for this same request or another. Among concurrent first uses exactly one inserts.
 */
export async function reserveIdempotencyKey(
  db: Knex,
  input: { keyId: string; idempotencyKey: string; fingerprint: string; retentionMs: number },
): Promise<Reservation> {
  // A row committed by a concurrent first use after this statement's snapshot is not seen by the
  // read below: one more round sees it.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const { rows } = await runPrepared<{ fingerprint: string | null }>(
      db,
      `with reserved as (
         insert into ${TABLE} as r (key_id, idempotency_key, fingerprint, claim_id, status, locked_until, expires_at)
         values (?, ?, ?, '', 'forwarded', now(), now() + ? * interval '1 millisecond')
         on conflict (key_id, idempotency_key) do update set
           fingerprint = excluded.fingerprint, claim_id = excluded.claim_id, status = excluded.status,
           response_status = null, response_headers = null, response_body = null, created_at = now(),
           locked_until = excluded.locked_until, expires_at = excluded.expires_at
         where r.expires_at <= now()
         returning 1)
       select null as fingerprint from reserved
       union all
       select fingerprint from ${TABLE} where key_id = ? and idempotency_key = ? and not exists (select 1 from reserved)`,
      [input.keyId, input.idempotencyKey, input.fingerprint, input.retentionMs, input.keyId, input.idempotencyKey],
    );
    const row = rows[0];
    if (!row) continue;
    if (row.fingerprint === null) return 'first_use';
    return row.fingerprint === input.fingerprint ? 'same_request' : 'other_request';
  }
  // Never seen in practice (a purge would have to delete the row between every round): the
  // request goes on, and its service's own record still guards against a second change.
  return 'same_request';
}
