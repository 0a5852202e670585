import type { ApiEvent as Event, Environment } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { STREAMED_ENVIRONMENT } from '../domain/event-stream.ts';

/** The work signal raised whenever the scope's stream may have grown (its hub wakes on it). */
export const streamGrowthSignal = (scope: { accountId: string; environment: string }) => `event-stream:${scope.environment}:${scope.accountId}`;

export interface StreamScope {
  accountId: string;
  environment: Environment;
}

/** One item of a stream: its place, and the stored event as it was published. */
export interface StreamItem {
  seq: number;
  replay: boolean;
  event: Event;
}

/**
 * CTEs that append the events of a `stored` CTE (id, account_id, environment) to their streams,
 * in the order of the `input` CTE's `ord`, for `storeAndQueue`'s one statement: each scope's head
 * row is bumped once by its count of new entries (locked until commit, so entries commit in seq
 * order) and the entries take the seqs below the new head, in order.
 */
export const STREAM_ENTRY_OF_STORED = `
  streamed as (
    select s.id, s.account_id, s.environment,
      row_number() over (partition by s.account_id, s.environment order by i.ord) as n,
      count(*) over (partition by s.account_id, s.environment) as c
    from stored s join input i on i.id = s.id
    where s.environment = '${STREAMED_ENVIRONMENT}'
  ), head as (
    insert into notifications.stream_heads (account_id, environment, seq)
    select distinct account_id, environment, c from streamed
    on conflict (account_id, environment) do update set seq = notifications.stream_heads.seq + excluded.seq
    returning account_id, environment, seq
  ), stream_entry as (
    insert into notifications.stream_entries (account_id, environment, seq, event_id, replay)
    select s.account_id, s.environment, h.seq - s.c + s.n, s.id, false
    from streamed s join head h on h.account_id = s.account_id and h.environment = s.environment
    returning 1
  )`;

/**
 * Appends replayed events (ids, in the order given) to the stream of the scope, inside the
 * replay's transaction; how many were appended.
 */
export async function appendReplayEntries(trx: Knex.Transaction, scope: StreamScope, eventIds: readonly string[]): Promise<number> {
  if (scope.environment !== STREAMED_ENVIRONMENT || eventIds.length === 0) return 0;
  // The head grows by the batch's size at once; entries take the numbers below the new head.
  const result = await trx.raw<{ rows: { appended: string }[] }>(
    `with picked as (
       select p.id, row_number() over (order by p.n) as n
       from unnest(?::text[]) with ordinality as p(id, n)
     ), total as (
       select count(*) as n from picked
     ), head as (
       insert into notifications.stream_heads (account_id, environment, seq)
       select ?, ?, total.n from total
       on conflict (account_id, environment) do update set seq = notifications.stream_heads.seq + excluded.seq
       returning seq
     ), appended as (
       insert into notifications.stream_entries (account_id, environment, seq, event_id, replay)
       select ?, ?, head.seq - total.n + picked.n, picked.id, true from picked, head, total
       returning 1
     )
     select count(*) as appended from appended`,
    [[...eventIds], scope.accountId, scope.environment, scope.accountId, scope.environment],
  );
  return Number(result.rows[0]?.appended ?? 0);
}

/** The newest seq of the scope's stream (0 when it has none): a stream opened now starts after it. */
export async function streamHead(knex: Knex, scope: StreamScope): Promise<number> {
  const row = (await knex('notifications.stream_heads').select('seq').where({ account_id: scope.accountId, environment: scope.environment }).first()) as
    { seq: string | number } | undefined;
  return Number(row?.seq ?? 0);
}

/**
 * Where a stream resumes after the event `eventId`: its FIRST entry in the scope's stream. A
 * replayed event has several entries and the id alone cannot tell which one the client saw last,
 * so the earliest is taken: nothing is lost, and what came after it may come again (at least
 * once). Undefined when the scope's stream has no such event.
 */
export async function resumePoint(knex: Knex, scope: StreamScope, eventId: string): Promise<number | undefined> {
  const row = (await knex('notifications.stream_entries')
    .min('seq as seq')
    .where({ event_id: eventId, account_id: scope.accountId, environment: scope.environment })
    .first()) as { seq: string | number | null } | undefined;
  return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
}

/**
 * The scope's stream after `seq`, in order, at most `limit` entries. An entry whose event was
 * pruned (retention) is skipped: the join drops it.
 */
export async function readStream(knex: Knex, scope: StreamScope, afterSeq: number, limit: number): Promise<StreamItem[]> {
  const rows = (await knex('notifications.stream_entries as s')
    .join('notifications.events as ev', 'ev.id', 's.event_id')
    .select('s.seq', 's.replay', 'ev.envelope')
    .where({ 's.account_id': scope.accountId, 's.environment': scope.environment })
    .andWhere('s.seq', '>', afterSeq)
    .orderBy('s.seq', 'asc')
    .limit(limit)) as { seq: string | number; replay: boolean; envelope: Event }[];
  return rows.map((row) => ({ seq: Number(row.seq), replay: row.replay, event: row.envelope }));
}
