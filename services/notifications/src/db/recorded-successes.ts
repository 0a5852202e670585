import { runPrepared } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { AttemptRecord } from './deliveries-repository.ts';
import { CLOSED_CIRCUIT } from './endpoint-circuit-repository.ts';

const CLOSE_CIRCUIT = Object.entries(CLOSED_CIRCUIT)
  .map(([column, value]) => `${column} = ${value === null ? 'null' : String(value)}`)
  .join(', ');

/**
 * Records successful attempts, any number, in ONE statement (atomic, as `recordAttempt`'s
 * transaction is for one): each delivery ends `succeeded` if its claim is still the holder's, its
 * attempt is written (once), and its endpoint's failure streak and circuit are cleared where
 * there is something to clear. Successes are the bulk of the attempts; a worker records those
 * of concurrent attempts together (group commit), so a burst of deliveries costs a round trip
 * per batch, not a transaction of five per attempt (record 0195).
 */
export async function recordSuccesses(knex: Knex, records: readonly AttemptRecord[]): Promise<void> {
  const input = records.map((record) => ({
    id: record.id,
    delivery_id: record.claim.deliveryId,
    token: record.claim.token,
    endpoint_id: record.claim.endpoint.id,
    event_id: record.claim.event.id,
    event_type: record.claim.event.type,
    attempt: record.claim.attempt,
    status_code: record.statusCode,
    duration_ms: record.durationMs,
    at: record.at.toISOString(),
  }));
  await runPrepared(
    knex,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as i(id text, delivery_id bigint, token text, endpoint_id text, event_id text,
         event_type text, attempt int, status_code int, duration_ms int, at timestamptz)
     ), moved as (
       update notifications.deliveries d
       set status = 'succeeded', next_attempt_at = i.at, claim_token = null, updated_at = i.at
       from input i where d.id = i.delivery_id and d.claim_token = i.token
       returning d.id
     ), logged as (
       insert into notifications.attempts
         (id, delivery_id, endpoint_id, event_id, event_type, attempt, status, status_code, error, duration_ms, next_retry_at, created_at)
       select id, delivery_id, endpoint_id, event_id, event_type, attempt, 'succeeded', status_code, null, duration_ms, null, at from input
       on conflict (delivery_id, attempt) do nothing
       returning id
     ), cleared as (
       update notifications.endpoints e set failing_since = null, ${CLOSE_CIRCUIT}
       where e.id in (select endpoint_id from input)
         and (e.failing_since is not null or e.timeouts_in_a_row > 0 or e.circuit_open_until is not null)
       returning e.id
     )
     select (select count(*) from moved) as moved, (select count(*) from logged) as logged, (select count(*) from cleared) as cleared`,
    [JSON.stringify(input)],
  );
}
