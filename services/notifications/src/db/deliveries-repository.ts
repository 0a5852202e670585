import type { ApiEvent as Event, Environment, EventType, WebhookAttemptError } from '@connectivity/contracts';
import { claimDue as claimDueRows, signalAfterCommit } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { AttemptView } from '../domain/attempt.ts';

/** The work signal of deliveries: raised after a commit that queued some. */
export const DELIVERIES_SIGNAL = 'notifications:deliveries';

/**
 * Delivery work lives here, not in process memory: a `pending` row is due at `next_attempt_at`.
 * A worker claims due rows with the platform's `claimDue` (rows another worker holds are
 * skipped) and pushes `next_attempt_at` past the lease, so no other instance takes the same
 * attempt; a worker that dies mid-attempt simply lets the lease run out and the row becomes due
 * again.
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

/** One attempt a worker now owns: what to send and where. */
export interface Claim {
  deliveryId: string;
  token: string;
  attempt: number;
  /** `sealedSecret` is opened only to sign this attempt. */
  endpoint: { id: string; url: string; sealedSecret: string; environment: Environment };
  event: Event;
  /** W3C trace context of the request that caused the event. */
  traceContext: Record<string, string>;
}

interface DueRow {
  id: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  secret_sealed: string;
  environment: Environment;
  usable: boolean;
  envelope: Event;
  trace_context: Record<string, string> | null;
}

/**
 * Claims up to `limit` due deliveries until `leaseUntil` (the platform's lease claim: no other
 * worker takes them meanwhile), then reads what sending them needs; deliveries of endpoints
 * disabled or deleted meanwhile are cancelled instead. Fresh deliveries (and their retries) are
 * claimed first, replayed ones with what room is left, so a replay's backlog never holds up an
 * event that just happened, of this account or any other.
 */
export async function claimDue(knex: Knex, options: { now: Date; leaseUntil: Date; limit: number; token: string }): Promise<Claim[]> {
  const claim = (replay: boolean, limit: number) =>
    claimDueRows<{ id: string }>(knex, {
      table: 'notifications.deliveries',
      key: 'id',
      // Each side has its own due index (deliveries_due_fresh, deliveries_due_replayed).
      due: { sql: `status = 'pending' and ${replay ? '' : 'not '}replay and next_attempt_at <= ?`, bindings: [options.now] },
      orderBy: 'next_attempt_at',
      limit,
      set: { sql: 'attempts = attempts + 1, next_attempt_at = ?, claim_token = ?, updated_at = ?', bindings: [options.leaseUntil, options.token, options.now] },
      returning: ['id'],
    });
  const claimed = await claim(false, options.limit);
  if (claimed.length < options.limit) claimed.push(...(await claim(true, options.limit - claimed.length)));
  if (claimed.length === 0) return [];
  const due = await knex.raw<{ rows: DueRow[] }>(
    `select d.id, d.attempts, d.endpoint_id, e.url, e.secret_sealed, e.environment,
            (e.deleted_at is null and not e.disabled) as usable, ev.envelope, ev.trace_context
     from notifications.deliveries d
     join notifications.endpoints e on e.id = d.endpoint_id
     join notifications.events ev on ev.id = d.event_id
     where d.id = any(?) and d.claim_token = ?
     order by d.next_attempt_at`,
    [claimed.map((row) => row.id), options.token],
  );
  const stale = due.rows.filter((row) => !row.usable).map((row) => row.id);
  if (stale.length > 0) {
    await knex('notifications.deliveries')
      .whereIn('id', stale)
      .andWhere('claim_token', options.token)
      .update({ status: 'cancelled', claim_token: null, updated_at: options.now });
  }
  return due.rows
    .filter((row) => row.usable)
    .map((row) => ({
      deliveryId: String(row.id),
      token: options.token,
      // `attempts` already counts this one.
      attempt: row.attempts,
      endpoint: { id: row.endpoint_id, url: row.url, sealedSecret: row.secret_sealed, environment: row.environment },
      event: row.envelope,
      traceContext: row.trace_context ?? {},
    }));
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
  at: Date;
}

/**
 * Records one attempt and moves its delivery on, in one transaction; also keeps the endpoint's
 * failure streak, disabling it when the receiver said 410 or has failed for `disableAfterMs`.
 */
export async function recordAttempt(
  knex: Knex,
  record: AttemptRecord,
  options: { disableAfterMs: number; streakReason: string },
): Promise<'gone' | 'failing' | undefined> {
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
    if (record.succeeded) {
      await endpoints.whereNotNull('failing_since').update({ failing_since: null });
      return undefined;
    }
    const [streak] = await endpoints
      .update({ failing_since: trx.raw('coalesce(failing_since, ?)', [at]) })
      .returning<{ failing_since: Date; disabled: boolean }[]>(['failing_since', 'disabled']);
    if (!streak || streak.disabled) return undefined;
    const reason =
      record.disableReason ?? (at.getTime() - new Date(streak.failing_since).getTime() >= options.disableAfterMs ? options.streakReason : undefined);
    if (reason === undefined) return undefined;
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
    return record.disableReason === undefined ? 'failing' : 'gone';
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
