import type { Knex } from 'knex';

/**
 * The event log, the webhook endpoints, and the delivery work: one `deliveries` row per
 * (event, endpoint) to deliver, claimed by workers under a lease (rows another holds are skipped), and one
 * `attempts` row per HTTP call made for it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table notifications.events (
      id text primary key,
      account_id text not null,
      environment text not null,
      type text not null,
      created_at bigint not null,
      -- json, not jsonb: the envelope is sent and listed exactly as it was published (key order kept)
      envelope json not null,
      stored_at timestamptz not null default now()
    )`);
  await knex.raw(`create index events_by_account on notifications.events (account_id, environment, created_at desc, id desc)`);

  await knex.raw(`
    create table notifications.endpoints (
      id text primary key,
      account_id text not null,
      environment text not null,
      url text not null,
      description text,
      enabled_events jsonb not null,
      secret text not null,
      disabled boolean not null default false,
      disabled_reason text,
      failing_since timestamptz,
      created_at bigint not null,
      updated_at bigint not null,
      deleted_at bigint
    )`);
  // Same URL twice in one account and environment is 409 already_exists; the index makes that race-safe.
  await knex.raw(`create unique index endpoints_unique_url on notifications.endpoints (account_id, environment, url) where deleted_at is null`);
  await knex.raw(`create index endpoints_by_account on notifications.endpoints (account_id, environment, id desc) where deleted_at is null`);

  await knex.raw(`
    create table notifications.deliveries (
      id bigserial primary key,
      event_id text not null references notifications.events (id),
      endpoint_id text not null references notifications.endpoints (id),
      status text not null check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      claim_token text,
      replay boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`create index deliveries_due on notifications.deliveries (next_attempt_at) where status = 'pending'`);
  await knex.raw(`create index deliveries_pending_by_endpoint on notifications.deliveries (endpoint_id) where status = 'pending'`);

  await knex.raw(`
    create table notifications.attempts (
      id text primary key,
      delivery_id bigint not null references notifications.deliveries (id),
      endpoint_id text not null references notifications.endpoints (id),
      event_id text not null,
      event_type text not null,
      attempt integer not null,
      status text not null check (status in ('succeeded', 'failed')),
      status_code integer,
      error text,
      duration_ms integer not null,
      next_retry_at timestamptz,
      created_at timestamptz not null,
      unique (delivery_id, attempt)
    )`);
  await knex.raw(`create index attempts_by_endpoint on notifications.attempts (endpoint_id, id desc)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists notifications.attempts');
  await knex.raw('drop table if exists notifications.deliveries');
  await knex.raw('drop table if exists notifications.endpoints');
  await knex.raw('drop table if exists notifications.events');
}
