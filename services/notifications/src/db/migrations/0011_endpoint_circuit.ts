import type { Knex } from 'knex';

/**
 * The circuit of each webhook endpoint (domain/endpoint-circuit.ts), kept on the endpoint so
 * every instance sees it: the timeouts in a row, until when it is open, and how many times it
 * opened since it last closed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table notifications.endpoints add column timeouts_in_a_row integer not null default 0');
  await knex.raw('alter table notifications.endpoints add column circuit_open_until timestamptz');
  await knex.raw('alter table notifications.endpoints add column circuit_opens integer not null default 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table notifications.endpoints drop column circuit_opens');
  await knex.raw('alter table notifications.endpoints drop column circuit_open_until');
  await knex.raw('alter table notifications.endpoints drop column timeouts_in_a_row');
}
