import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/** Orders and the eSIMs they created. Times are Unix seconds, as the API shows them. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.orders (
      id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      bundle text not null,
      quantity integer not null check (quantity between 1 and 10),
      price_cents integer not null check (price_cents >= 0),
      total_cents integer not null check (total_cents >= 0),
      currency text not null,
      created_at bigint not null
    )`,
    [SCHEMA],
  );
  await knex.raw(
    `create table ??.esims (
      id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      order_id text not null references ??.orders (id),
      iccid text not null,
      state text not null check (state in ('released', 'installed', 'active', 'suspended', 'expired')),
      bundle text,
      data_used_bytes bigint not null default 0 check (data_used_bytes >= 0),
      data_limit_bytes bigint check (data_limit_bytes >= 0),
      thresholds_notified smallint[] not null default '{}',
      activation_code text,
      smdp_address text,
      matching_id text,
      expires_at bigint,
      created_at bigint not null,
      updated_at bigint not null,
      check (data_limit_bytes is null or data_used_bytes <= data_limit_bytes)
    )`,
    [SCHEMA, SCHEMA],
  );
  // An ICCID names one profile in the whole service, across accounts and environments.
  await knex.raw('create unique index esims_iccid_key on ??.esims (iccid)', [SCHEMA]);
  // GET /v1/esim: newest first, then id, within one account and environment.
  await knex.raw('create index esims_list_idx on ??.esims (account_id, environment, created_at desc, id desc)', [SCHEMA]);
  // The sweeper's query: only eSIMs that can still expire.
  await knex.raw("create index esims_expiry_idx on ??.esims (expires_at) where state <> 'expired'", [SCHEMA]);
  await knex.raw('create index esims_order_idx on ??.esims (order_id)', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.esims', [SCHEMA]);
  await knex.raw('drop table if exists ??.orders', [SCHEMA]);
}
