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

/** An event as the consumer stores it: with the trace it was published in, for its deliveries. */
export interface EventToStore {
  event: InternalEvent;
  traceContext: Record<string, string>;
}

/**
 * Stores events once each, queues their deliveries to every matching endpoint and appends them
 * to their account's event stream (test events), in ONE statement (a statement is atomic: all or
 * nothing) and so one round trip for the whole batch, whatever its size (the events go as one
 * JSON binding, so the text, prepared once, is the same). A second copy of an event (a
 * redelivery, a re-publish, or the same event twice in the batch) is ignored: its result is
 * undefined, nothing queued twice. Otherwise how many deliveries were queued for it; they wake
 * the delivery worker. Results are in the order of `batch`, and so are the stream entries.
 */
export async function storeAndQueue(knex: Knex, batch: readonly EventToStore[], now: Date): Promise<(number | undefined)[]> {
  const seen = new Set<string>();
  const input = [];
  for (const [ord, { event, traceContext }] of batch.entries()) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const { account_id: accountId, ...envelope } = event;
    input.push({
      ord,
      id: event.id,
      account_id: accountId,
      environment: event.environment,
      type: event.type,
      created_at: event.created_at,
      occurred_at: new Date(event.time).toISOString(),
      envelope,
      trace_context: traceContext,
    });
  }
  const result = await runPrepared<{ ord: number; stored: boolean; queued: string }>(
    knex,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as i(ord int, id text, account_id text, environment text, type text,
         created_at bigint, occurred_at timestamptz, envelope jsonb, trace_context jsonb)
     ), stored as (
       insert into notifications.events (id, account_id, environment, type, created_at, occurred_at, envelope, trace_context)
       select id, account_id, environment, type, created_at, occurred_at, envelope, trace_context from input order by ord
       on conflict (id) do nothing
       returning id, account_id, environment, type
     ), queued as (
       insert into notifications.deliveries (event_id, endpoint_id, status, next_attempt_at)
       select ev.id, e.id, 'pending', ?
       from stored ev join notifications.endpoints e on ${MATCHING_ENDPOINTS}
       returning event_id
     ), ${STREAM_ENTRY_OF_STORED}
     select i.ord, exists (select 1 from stored s where s.id = i.id) as stored,
       (select count(*) from queued q where q.event_id = i.id) as queued
     from input i`,
    [JSON.stringify(input), now],
  );
  const results: (number | undefined)[] = batch.map(() => undefined);
  let anyQueued = false;
  for (const row of result.rows) {
    if (!row.stored) continue;
    const queued = Number(row.queued);
    results[row.ord] = queued;
    if (queued > 0) anyQueued = true;
  }
  // Committed with the statement: the delivery worker can start at once.
  if (anyQueued) signalWork(DELIVERIES_SIGNAL);
  return results;
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
export async function findEvent(knex: Knex, scope: { accountId: string; environment: Environment }, id: string): Promise<Event | undefined> {
  const row = (await knex('notifications.events').select('envelope').where({ id, account_id: scope.accountId, environment: scope.environment }).first()) as
    { envelope: Event } | undefined;
  return row?.envelope;
}
