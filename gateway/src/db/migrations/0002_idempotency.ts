import type { Knex } from 'knex';

/**
 * Idempotency records, one per (API key, Idempotency-Key). A row is claimed `in_progress`
 * before the request is forwarded, so a concurrent duplicate finds it and never reaches the
 * service; `locked_until` lets a later request take over a claim whose gateway died.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table gateway.idempotency_records (
      key_id text not null,
      idempotency_key text not null,
      fingerprint text not null,
      claim_id text not null,
      status text not null check (status in ('in_progress', 'completed')),
      response_status integer,
      response_headers jsonb,
      response_body text,
      created_at timestamptz not null default now(),
      locked_until timestamptz not null,
      expires_at timestamptz not null,
      primary key (key_id, idempotency_key)
    )`);
  await knex.raw('create index idempotency_records_expiry on gateway.idempotency_records (expires_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table gateway.idempotency_records');
}
