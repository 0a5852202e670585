import type { Knex } from 'knex';

/**
 * Accounts and their API keys. Only a SHA-256 hash of a secret is kept; the partial unique
 * index enforces "one active key per environment" even when two operators rotate at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table gateway.accounts (
      id text primary key,
      name text,
      is_dev boolean not null default false,
      pinned_version text,
      rate_limit_per_minute integer check (rate_limit_per_minute is null or rate_limit_per_minute > 0),
      created_at timestamptz not null default now()
    )`);
  await knex.raw('create unique index accounts_one_dev on gateway.accounts (is_dev) where is_dev');
  await knex.raw(`
    create table gateway.api_keys (
      id text primary key,
      account_id text not null references gateway.accounts (id),
      environment text not null check (environment in ('test', 'live')),
      secret_hash bytea not null unique,
      prefix text not null,
      last4 text not null,
      status text not null default 'active' check (status in ('active', 'revoked')),
      scopes text[] not null,
      created_at timestamptz not null default now(),
      first_used_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )`);
  await knex.raw(`create unique index api_keys_one_active on gateway.api_keys (account_id, environment) where status = 'active'`);
  await knex.raw('create index api_keys_by_account on gateway.api_keys (account_id, created_at, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table gateway.api_keys');
  await knex.raw('drop table gateway.accounts');
}
