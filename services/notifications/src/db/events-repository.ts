import type { ApiEvent as Event, Environment } from '@connectivity/contracts';
import type { InternalEvent } from '@connectivity/platform';
import { runPrepared, signalWork } from '@connectivity/platform';
import type { Knex } from 'knex';
import { DELIVERIES_SIGNAL, MATCHING_ENDPOINTS } from './deliveries-repository.ts';
import { STREAM_ENTRY_OF_STORED } from './stream-repository.ts';

/** Where a page of events starts: after this (time in ms, id), newest first. */
export interface EventPosition {
  timeMs: number;
  id: string;
}

interface EventRow {
  id: string;
  created_at: string | number;
  envelope: Event;
}

/**
 * Stores an event once, queues its deliveries to every matching endpoint and appends it to the
 * event stream (test events), in ONE statement
 * (a statement is atomic: both or neither) and so one round trip per consumed event. A second
 * copy (a redelivery, a re-publish) is ignored: undefined, nothing queued twice. Otherwise how
 * many deliveries were queued; they wake the delivery worker.
 */
export async function storeAndQueue(knex: Knex, event: InternalEvent, traceContext: Record<string, string>, now: Date): Promise<number | undefined> {
  const { account_id: accountId, ...envelope } = event;
  const result = await runPrepared<{ stored: boolean; queued: string }>(
    knex,
    `with stored as (
       insert into notifications.events (id, account_id, environment, type, created_at, occurred_at, envelope, trace_context)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (id) do nothing
       returning id, account_id, environment, type
     ), queued as (
       insert into notifications.deliveries (event_id, endpoint_id, status, next_attempt_at)
       select ev.id, e.id, 'pending', ?
       from stored ev join notifications.endpoints e on ${MATCHING_ENDPOINTS}
       returning 1
     ), ${STREAM_ENTRY_OF_STORED}
     select exists (select 1 from stored) as stored, (select count(*) from queued) as queued`,
    [event.id, accountId, event.environment, event.type, event.created_at, new Date(event.time), JSON.stringify(envelope), JSON.stringify(traceContext), now],
  );
  const row = result.rows[0];
  if (!row?.stored) return undefined;
  const queued = Number(row.queued);
  // Committed with the statement: the delivery worker can start at once.
  if (queued > 0) signalWork(DELIVERIES_SIGNAL);
  return queued;
}

/**
 * A page of the caller's events, newest first by their `time` (milliseconds, so events from
 * several instances list in the order their times say), then by id; `limit + 1` rows to tell if
 * more exist.
 */
export async function listEvents(
  knex: Knex,
  scope: { accountId: string; environment: Environment },
  after: EventPosition | undefined,
  fetch: number,
): Promise<(Event & { created_at: number })[]> {
  const query = knex('notifications.events')
    .select('id', 'created_at', 'envelope')
    .where({ account_id: scope.accountId, environment: scope.environment })
    .orderBy([
      { column: 'occurred_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(fetch);
  if (after) {
    query.andWhereRaw('(occurred_at, id) < (?, ?)', [new Date(after.timeMs), after.id]);
  }
  const rows = (await query) as EventRow[];
  return rows.map((row) => row.envelope);
}

/** The event with this id in the caller's account and environment, or undefined. */
export async function findEvent(
  knex: Knex,
  scope: { accountId: string; environment: Environment },
  id: string,
): Promise<Event | undefined> {
  const row = (await knex('notifications.events')
    .select('envelope')
    .where({ id, account_id: scope.accountId, environment: scope.environment })
    .first()) as { envelope: Event } | undefined;
  return row?.envelope;
}
