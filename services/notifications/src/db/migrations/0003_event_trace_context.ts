import type { Knex } from 'knex';

/**
 * The W3C trace context an event arrived with, so each webhook delivery (made later, by the
 * delivery worker) continues the trace of the request that caused the event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table notifications.events add column trace_context jsonb not null default '{}'::jsonb`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table notifications.events drop column trace_context');
}
