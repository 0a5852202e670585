import type { Knex } from 'knex';

/**
 * Lets the edge write its one kind of record, `forwarded`: the fingerprint of the request a key
 * was first used for (see `reserveIdempotencyKey`); the answers live in the owning service's
 * record. The platform table's own statuses stay allowed, so rows written with them stay valid
 * until they expire.
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
