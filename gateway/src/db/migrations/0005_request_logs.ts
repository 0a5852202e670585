import type { Knex } from 'knex';

/**
 * The request log: one row per authenticated request (DECISIONS "Request log"), written in
 * batches by the gateway, never in the request. No body, query string or header is kept. The
 * index serves both the newest-first list of an account's environment and the per-account trim.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table gateway.request_logs (
      request_id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      key_id text not null,
      method text not null,
      path text not null,
      route text,
      status integer not null,
      duration_ms integer not null,
      created_at timestamptz not null
    )`);
  await knex.raw('create index request_logs_by_account on gateway.request_logs (account_id, environment, created_at desc, request_id desc)');
  await knex.raw('create index request_logs_by_age on gateway.request_logs (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table gateway.request_logs');
}
