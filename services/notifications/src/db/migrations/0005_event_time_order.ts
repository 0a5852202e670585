import type { Knex } from 'knex';

/**
 * Events are listed by their `time` (milliseconds), not `created_at` (seconds): two instances
 * emitting in the same second would otherwise interleave by id, against the times shown.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table notifications.events add column occurred_at timestamptz');
  await knex.raw(`update notifications.events set occurred_at = (envelope->>'time')::timestamptz`);
  await knex.raw('alter table notifications.events alter column occurred_at set not null');
  await knex.raw('create index events_by_time on notifications.events (account_id, environment, occurred_at desc, id desc)');
  await knex.raw('drop index if exists notifications.events_by_account');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index events_by_account on notifications.events (account_id, environment, created_at desc, id desc)');
  await knex.raw('drop index if exists notifications.events_by_time');
  await knex.raw('alter table notifications.events drop column occurred_at');
}
