import type { Knex } from 'knex';

/**
 * The order of the event stream (GET /v1/events/stream): one entry per stored test event and per
 * replayed one, numbered per account and environment by `stream_heads`. The head row is bumped in
 * the statement that writes the entries, and its row lock is held until commit, so entries of one
 * account and environment commit in `seq` order: a reader that has seen `seq` n has seen every
 * entry below it, which the events' own times (set by the emitting instance) cannot promise.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table notifications.stream_heads (
      account_id text not null,
      environment text not null,
      seq bigint not null,
      primary key (account_id, environment)
    )`);
  await knex.raw(`
    create table notifications.stream_entries (
      account_id text not null,
      environment text not null,
      seq bigint not null,
      event_id text not null,
      replay boolean not null,
      created_at timestamptz not null default now(),
      primary key (account_id, environment, seq)
    )`);
  // Resuming from a Last-Event-ID, and pruning with the event.
  await knex.raw('create index stream_entries_by_event on notifications.stream_entries (event_id, seq)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists notifications.stream_entries');
  await knex.raw('drop table if exists notifications.stream_heads');
}
