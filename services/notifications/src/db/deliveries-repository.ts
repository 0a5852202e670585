import type { Environment, EventType, WebhookAttemptError } from '@connectivity/contracts';
import { signalAfterCommit } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { AttemptView } from '../domain/attempt.ts';
import type { CircuitPolicy, CircuitState } from '../domain/endpoint-circuit.ts';
import type { Claim } from './delivery-claims.ts';
import { CLOSED_CIRCUIT, updateCircuit } from './endpoint-circuit-repository.ts';

/** The work signal of deliveries: raised after a commit that queued some. */
export const DELIVERIES_SIGNAL = 'notifications:deliveries';

/**
 * Delivery work lives here, not in process memory: a `pending` row is due at `next_attempt_at`.
 * A worker claims due rows (delivery-claims.ts: rows another worker holds are skipped) and pushes
 * `next_attempt_at` past the lease, so no other instance takes the same attempt; a worker that
 * dies mid-attempt simply lets the lease run out and the row becomes due again.
 */

// Endpoints an event goes to: same account and environment, live (not deleted or disabled), subscribed to its type.
export const MATCHING_ENDPOINTS = `
  e.account_id = ev.account_id
  and e.environment = ev.environment
  and e.deleted_at is null
  and not e.disabled
  and (e.enabled_events @> '["*"]'::jsonb or e.enabled_events @> jsonb_build_array(ev.type))`;

/** Queues one past event again (fresh deliveries, same event id) to every endpoint subscribed to it now. */
export async function enqueueEventReplay(
  knex: Knex.Transaction,
  scope: { accountId: string; environment: Environment },
  eventId: string,
  now: Date,
): Promise<number> {
  const result = await knex.raw<{ rows: { endpoint_id: string }[] }>(
    `insert into notifications.deliveries (event_id, endpoint_id, status, next_attempt_at, replay)
     select ev.id, e.id, 'pending', ?, true
     from notifications.events ev join notifications.endpoints e on ${MATCHING_ENDPOINTS}
     where ev.account_id = ? and ev.environment = ? and ev.id = ?
     returning endpoint_id`,
    [now, scope.accountId, scope.environment, eventId],
  );
  if (result.rows.length > 0) signalAfterCommit(knex, DELIVERIES_SIGNAL);
  return result.rows.length;
}

export interface AttemptRecord {
  id: string;
  claim: Claim;
  succeeded: boolean;
  statusCode: number | null;
  error: WebhookAttemptError | null;
  durationMs: number;
  /** When to try again; null after success or the last attempt. */
  nextAttemptAt: Date | null;
  /** Disable the endpoint now, with this reason (410). */
  disableReason: string | undefined;
  /** The attempt ran out of time (it counts towards the endpoint's circuit). */
  timedOut: boolean;
  at: Date;
}

/** What recording an attempt did to its endpoint. */
export interface EndpointChange {
  /** Disabled: the receiver said 410, or has failed for too long. */
  disabled?: 'gone' | 'failing';
  /** The endpoint's circuit opened (or reopened), until `openUntil`. */
  circuitOpened?: CircuitState;
}

/**
 * Records one attempt and moves its delivery on, in one transaction; also moves the endpoint's
 * circuit on and keeps its failure streak, disabling it when the receiver said 410 or has failed
 * for `disableAfterMs`.
 */
export async function recordAttempt(
  knex: Knex,
  record: AttemptRecord,
  options: { disableAfterMs: number; streakReason: string; circuit: CircuitPolicy },
): Promise<EndpointChange> {
  const { claim, at } = record;
  return knex.transaction(async (trx) => {
    const status = record.succeeded ? 'succeeded' : record.nextAttemptAt ? 'pending' : 'failed';
    // Only the holder of the claim moves the delivery on; a worker whose lease ran out records its attempt and stops.
    await trx('notifications.deliveries')
      .where({ id: claim.deliveryId, claim_token: claim.token })
      .update({ status, next_attempt_at: record.nextAttemptAt ?? at, claim_token: null, updated_at: at });
    await trx('notifications.attempts')
      .insert({
        id: record.id,
        delivery_id: claim.deliveryId,
        endpoint_id: claim.endpoint.id,
        event_id: claim.event.id,
        event_type: claim.event.type,
        attempt: claim.attempt,
        status: record.succeeded ? 'succeeded' : 'failed',
        status_code: record.statusCode,
        error: record.error,
        duration_ms: record.durationMs,
        next_retry_at: record.nextAttemptAt,
        created_at: at,
      })
      .onConflict(['delivery_id', 'attempt'])
      .ignore();

    const endpoints = trx('notifications.endpoints').where({ id: claim.endpoint.id });
    // Anything but a timeout closes the circuit, in the update the attempt makes anyway (a
    // success writes only when there is something to clear); a timeout moves it on under the
    // endpoint's row lock.
    if (record.succeeded) {
      await endpoints
        .where((open) => open.whereNotNull('failing_since').orWhere('timeouts_in_a_row', '>', 0).orWhereNotNull('circuit_open_until'))
        .update({ failing_since: null, ...CLOSED_CIRCUIT });
      return {};
    }
    const circuitOpened = record.timedOut ? await updateCircuit(trx, claim.endpoint.id, at, options.circuit) : undefined;
    const change: EndpointChange = circuitOpened ? { circuitOpened } : {};
    const [streak] = await endpoints
      .update({ failing_since: trx.raw('coalesce(failing_since, ?)', [at]), ...(!record.timedOut && CLOSED_CIRCUIT) })
      .returning<{ failing_since: Date; disabled: boolean }[]>(['failing_since', 'disabled']);
    if (!streak || streak.disabled) return change;
    const reason =
      record.disableReason ?? (at.getTime() - new Date(streak.failing_since).getTime() >= options.disableAfterMs ? options.streakReason : undefined);
    if (reason === undefined) return change;
    await trx('notifications.endpoints')
      .where({ id: claim.endpoint.id })
      .update({
        disabled: true,
        disabled_reason: reason,
        updated_at: Math.floor(at.getTime() / 1000),
      });
    await trx('notifications.deliveries')
      .where({ endpoint_id: claim.endpoint.id, status: 'pending' })
      .update({ status: 'cancelled', claim_token: null, updated_at: at });
    return { ...change, disabled: record.disableReason === undefined ? 'failing' : 'gone' };
  });
}

interface AttemptRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: EventType;
  attempt: number;
  status: 'succeeded' | 'failed';
  status_code: number | null;
  error: WebhookAttemptError | null;
  duration_ms: number;
  next_retry_at: Date | null;
  created_at: Date;
}

/** A page of an endpoint's attempts, newest first (attempt ids sort by time). */
export async function listAttempts(knex: Knex, endpointId: string, afterId: string | undefined, fetch: number): Promise<AttemptView[]> {
  const query = knex('notifications.attempts').where({ endpoint_id: endpointId }).orderBy('id', 'desc').limit(fetch);
  if (afterId !== undefined) query.andWhere('id', '<', afterId);
  const rows = (await query) as AttemptRow[];
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    nextRetryAt: row.next_retry_at,
    createdAt: row.created_at,
  }));
}
