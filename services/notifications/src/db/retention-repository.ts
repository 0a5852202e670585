import type { Knex } from 'knex';

/**
 * Deletes up to `limit` events created before `before` (Unix seconds), with their deliveries and
 * the attempts of those, in one transaction. An event with a delivery still pending is kept
 * until that delivery ends, so pruning never cuts a retry schedule or a replay short. Rows
 * another instance is pruning are skipped, not waited for. Returns how many events went.
 */
export async function pruneEvents(knex: Knex, before: number, limit: number): Promise<number> {
  return knex.transaction(async (trx) => {
    const doomed = await trx.raw<{ rows: { id: string }[] }>(
      `select ev.id from notifications.events ev
       where ev.created_at < ?
         and not exists (select 1 from notifications.deliveries d where d.event_id = ev.id and d.status = 'pending')
       order by ev.created_at
       limit ?
       for update skip locked`,
      [before, limit],
    );
    const ids = doomed.rows.map((row) => row.id);
    if (ids.length === 0) return 0;
    const deliveries = trx('notifications.deliveries').select('id').whereIn('event_id', ids);
    await trx('notifications.attempts').whereIn('delivery_id', deliveries).delete();
    await trx('notifications.deliveries').whereIn('event_id', ids).delete();
    await trx('notifications.stream_entries').whereIn('event_id', ids).delete();
    await trx('notifications.events').whereIn('id', ids).delete();
    return ids.length;
  });
}
