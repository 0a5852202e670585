import type { Knex } from 'knex';

/**
 * Replays are queued, not run in the request: a `replays` row is the replay of the events of one
 * account and environment created at or after `since` and stored by `requested_at` (at most the
 * cap, counted in `total`), worked through in batches by the replay worker, which claims due rows
 * with a lease and moves the cursor (`after_time`, `after_id`: the last event queued) in each
 * batch's transaction. One replay per account and environment runs at a time (the unique index).
 *
 * Due deliveries are claimed fresh ones first: the due index is split by `replay`, so a replay's
 * backlog never stands before a live event's delivery.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table notifications.replays (
      id bigserial primary key,
      account_id text not null,
      environment text not null,
      since bigint not null,
      requested_at timestamptz not null,
      total integer not null,
      done integer not null default 0,
      after_time timestamptz,
      after_id text,
      status text not null check (status in ('running', 'finished')),
      next_run_at timestamptz not null,
      claim_token text,
      finished_at timestamptz
    )`);
  await knex.raw(`create unique index replays_one_running on notifications.replays (account_id, environment) where status = 'running'`);
  await knex.raw(`create index replays_due on notifications.replays (next_run_at) where status = 'running'`);
  await knex.raw(`create index replays_finished on notifications.replays (finished_at) where status = 'finished'`);

  await knex.raw(`create index deliveries_due_fresh on notifications.deliveries (next_attempt_at) where status = 'pending' and not replay`);
  await knex.raw(`create index deliveries_due_replayed on notifications.deliveries (next_attempt_at) where status = 'pending' and replay`);
  await knex.raw('drop index if exists notifications.deliveries_due');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create index deliveries_due on notifications.deliveries (next_attempt_at) where status = 'pending'`);
  await knex.raw('drop index if exists notifications.deliveries_due_replayed');
  await knex.raw('drop index if exists notifications.deliveries_due_fresh');
  await knex.raw('drop table if exists notifications.replays');
}
