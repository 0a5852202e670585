import type { Knex } from 'knex';

/**
 * The shared rate-limit counters, in the exact layout rate-limiter-flexible's PostgreSQL store
 * expects (key, points, expire in epoch ms). Created here rather than by the library so that the
 * schema is owned by migrations and the limiter never runs DDL at request time.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table gateway.rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table gateway.rate_limits');
}
