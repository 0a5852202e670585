import type { Knex } from 'knex';

/**
 * Deliveries are claimed endpoint by endpoint and tenant by tenant in turn (delivery-claims.ts):
 * which endpoints have due work (`deliveries_due`, one index for fresh and replayed alike: the
 * order between them is now decided per endpoint); each endpoint's pending deliveries in due
 * order, fresh before replayed (`deliveries_queue`, whose leading column also lists the endpoints
 * with work in a backlog and serves the per-endpoint counts the pending-by-endpoint index
 * served); the attempts under way, for the caps on them (`deliveries_in_flight`: claimed rows
 * only, a small index); and when each account and environment was last served
 * (`delivery_turns`), so the turn goes round across instances.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index deliveries_queue on notifications.deliveries (endpoint_id, replay, next_attempt_at) where status = 'pending'`);
  await knex.raw(`create index deliveries_in_flight on notifications.deliveries (endpoint_id) where status = 'pending' and claim_token is not null`);
  // The endpoint is in the index, so reading which endpoints have due rows needs no table row.
  await knex.raw(`create index deliveries_due on notifications.deliveries (next_attempt_at) include (endpoint_id) where status = 'pending'`);
  await knex.raw('drop index if exists notifications.deliveries_pending_by_endpoint');
  await knex.raw('drop index if exists notifications.deliveries_due_fresh');
  await knex.raw('drop index if exists notifications.deliveries_due_replayed');
  // A sequence, not a time: tenants served by one claim are numbered in the order it served them.
  await knex.raw('create sequence notifications.delivery_turns_served');
  await knex.raw(`
    create table notifications.delivery_turns (
      account_id text not null,
      environment text not null,
      served bigint not null,
      primary key (account_id, environment)
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists notifications.delivery_turns');
  await knex.raw('drop sequence if exists notifications.delivery_turns_served');
  await knex.raw(`create index deliveries_due_fresh on notifications.deliveries (next_attempt_at) where status = 'pending' and not replay`);
  await knex.raw(`create index deliveries_due_replayed on notifications.deliveries (next_attempt_at) where status = 'pending' and replay`);
  await knex.raw(`create index deliveries_pending_by_endpoint on notifications.deliveries (endpoint_id) where status = 'pending'`);
  await knex.raw('drop index if exists notifications.deliveries_due');
  await knex.raw('drop index if exists notifications.deliveries_in_flight');
  await knex.raw('drop index if exists notifications.deliveries_queue');
}
