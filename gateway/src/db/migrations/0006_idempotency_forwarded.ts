import type { Knex } from 'knex';

/**
 * The edge keeps one kind of record from now on: `forwarded`, the fingerprint of the request a
 * key was first used for (see `reserveIdempotencyKey`); the answers live in the owning service's
 * record. Rows of the older kinds are read the same way until they expire.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table gateway.idempotency_records
      drop constraint idempotency_records_status_check,
      add constraint idempotency_records_status_check check (status in ('in_progress', 'completed', 'forwarded'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`delete from gateway.idempotency_records where status = 'forwarded'`);
  await knex.raw(`
    alter table gateway.idempotency_records
      drop constraint idempotency_records_status_check,
      add constraint idempotency_records_status_check check (status in ('in_progress', 'completed'))`);
}
