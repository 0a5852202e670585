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

/** What storing one event did: deliveries queued, and those left out because its account was at its cap. */
export interface Stored {
  queued: number;
  overCap: number;
}

/**
 * Stores events once each, queues their deliveries to every matching endpoint and appends them
 * to their account's event stream (test events), in ONE statement (a statement is atomic: all or
 * nothing) and so one round trip for the whole batch, whatever its size (the events go as one
 * JSON binding, so the text, prepared once, is the same). A second copy of an event (a
 * redelivery, a re-publish, or the same event twice in the batch) is ignored: its result is
 * undefined, nothing queued twice. An account and environment holds at most
 * `maxPendingPerAccount` pending deliveries: past it, an event is stored (listed, streamed,
 * replayable) but its deliveries are not queued, and counted in `overCap`. Queued deliveries wake
 * the delivery worker. Results are in the order of `batch`, and so are the stream entries.
 */
export async function storeAndQueue(knex: Knex, batch: readonly EventToStore[], now: Date, maxPendingPerAccount: number): Promise<(Stored | undefined)[]> {
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
  const result = await runPrepared<{ ord: number; stored: boolean; queued: string; matched: string }>(
    knex,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as i(ord int, id text, account_id text, environment text, type text,
         created_at bigint, occurred_at timestamptz, envelope jsonb, trace_context jsonb)
     ), stored as (
       insert into notifications.events (id, account_id, environment, type, created_at, occurred_at, envelope, trace_context)
       select id, account_id, environment, type, created_at, occurred_at, envelope, trace_context from input order by ord
       on conflict (id) do nothing
       returning id, account_id, environment, type
     ), matched as (
       select ev.id as event_id, e.id as endpoint_id, ev.account_id, ev.environment,
         row_number() over (partition by ev.account_id, ev.environment order by i.ord, e.id) as n
       from stored ev join input i on i.id = ev.id join notifications.endpoints e on ${MATCHING_ENDPOINTS}
     ), room as (
       -- Counted up to the cap on the per-endpoint pending index, so a backlog is never counted whole.
       select t.account_id, t.environment, ?::int - (
         select count(*) from (
           select 1 from notifications.endpoints x join notifications.deliveries d on d.endpoint_id = x.id and d.status = 'pending'
           where x.account_id = t.account_id and x.environment = t.environment and x.deleted_at is null
           limit ?
         ) pending) as room
       from (select distinct account_id, environment from matched) t
     ), queued as (
       insert into notifications.deliveries (event_id, endpoint_id, status, next_attempt_at)
       select m.event_id, m.endpoint_id, 'pending', ?
       from matched m join room r on r.account_id = m.account_id and r.environment = m.environment
       where m.n <= r.room
       returning event_id
     ), ${STREAM_ENTRY_OF_STORED}
     select i.ord, exists (select 1 from stored s where s.id = i.id) as stored,
       (select count(*) from queued q where q.event_id = i.id) as queued,
       (select count(*) from matched m where m.event_id = i.id) as matched
     from input i`,
    [JSON.stringify(input), maxPendingPerAccount, maxPendingPerAccount, now],
  );
  const results: (Stored | undefined)[] = batch.map(() => undefined);
  let anyQueued = false;
  for (const row of result.rows) {
    if (!row.stored) continue;
    const queued = Number(row.queued);
    results[row.ord] = { queued, overCap: Number(row.matched) - queued };
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
