import type { ApiEvent as Event, Environment } from '@connectivity/contracts';
import type { InternalEvent } from '@connectivity/platform';
import type { Knex } from 'knex';

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
 * Stores an event once: a second copy (a redelivery, a re-publish) is ignored. Returns whether
 * this call stored it, so the caller fans it out to endpoints exactly once.
 */
export async function insertEvent(trx: Knex.Transaction, event: InternalEvent, traceContext: Record<string, string> = {}): Promise<boolean> {
  const { account_id: accountId, ...envelope } = event;
  const inserted = await trx('notifications.events')
    .insert({
      id: event.id,
      account_id: accountId,
      environment: event.environment,
      type: event.type,
      created_at: event.created_at,
      occurred_at: new Date(event.time),
      envelope: JSON.stringify(envelope),
      trace_context: JSON.stringify(traceContext),
    })
    .onConflict('id')
    .ignore()
    .returning<{ id: string }[]>('id');
  return inserted.length > 0;
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
