import type { Knex } from 'knex';

/**
 * One row per open event stream, so the cap of streams per API key holds across every
 * notifications instance: the instance serving a stream renews its row while the stream is open
 * and deletes it when it closes; the row of an instance that died expires by itself.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table notifications.stream_leases (
      id text primary key,
      key_id text not null,
      account_id text not null,
      expires_at timestamptz not null
    )`);
  await knex.raw('create index stream_leases_by_key on notifications.stream_leases (key_id, expires_at)');
  await knex.raw('create index stream_leases_by_expiry on notifications.stream_leases (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists notifications.stream_leases');
}
