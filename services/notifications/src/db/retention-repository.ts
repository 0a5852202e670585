import type { Knex } from 'knex';

/**
 * The events created before `before` (Unix seconds), oldest first, as a query for a sweep
 * (`sweepDue` adds the limit and the lock). An event with a delivery still pending is kept
 * until that delivery ends, so pruning never cuts a retry schedule or a replay short. With
 * `environment`, only that environment's events.
 */
export function eventsPastRetention(trx: Knex.Transaction, before: number, environment?: 'test'): Knex.QueryBuilder {
  const query = trx('notifications.events as ev').select('ev.id').where('ev.created_at', '<', before);
  // The test data retention (record 0213) selects test events alone: live ones are never its.
  if (environment) query.andWhere('ev.environment', environment);
  return query
    .whereNotExists(trx('notifications.deliveries as d').select(trx.raw('1')).whereRaw('d.event_id = ev.id').andWhere('d.status', 'pending'))
    .orderBy('ev.created_at');
}

/** Deletes the events `ids`, with their deliveries, the attempts of those, and their stream entries. */
export async function deleteEvents(trx: Knex.Transaction, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const deliveries = trx('notifications.deliveries').select('id').whereIn('event_id', ids);
  await trx('notifications.attempts').whereIn('delivery_id', deliveries).delete();
  await trx('notifications.deliveries').whereIn('event_id', ids).delete();
  await trx('notifications.stream_entries').whereIn('event_id', ids).delete();
  await trx('notifications.events').whereIn('id', ids).delete();
}
