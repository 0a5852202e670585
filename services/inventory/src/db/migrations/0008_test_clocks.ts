import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Test clocks (sandbox only) and the eSIMs and orders that live in their time. A clock belongs to
 * one account and environment. Times are Unix seconds, as the API shows them, except the advance
 * lease (milliseconds of real time). A deleted clock keeps its row: its eSIMs stay frozen at its
 * last `frozen_time`. New nullable columns rewrite no row, so the previous release keeps working.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.test_clocks (
      id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      name text,
      frozen_time bigint not null,
      status text not null default 'ready' check (status in ('ready', 'advancing')),
      advance_token text,
      advance_to bigint,
      advance_lease_until bigint,
      created_at bigint not null,
      deleted_at bigint,
      check ((status = 'advancing') = (advance_token is not null))
    )`,
    [SCHEMA],
  );
  // GET /v1/test/clocks: newest first, then id, within one account and environment.
  await knex.raw('create index test_clocks_list_idx on ??.test_clocks (account_id, environment, created_at desc, id desc) where deleted_at is null', [SCHEMA]);
  await knex.raw('alter table ??.orders add column test_clock text references ??.test_clocks (id)', [SCHEMA, SCHEMA]);
  await knex.raw('alter table ??.esims add column test_clock text references ??.test_clocks (id)', [SCHEMA, SCHEMA]);
  // An advance's query: the clock's eSIMs that can still expire, by validity.
  await knex.raw("create index esims_test_clock_expiry_idx on ??.esims (test_clock, expires_at) where test_clock is not null and state <> 'expired'", [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ??.esims_test_clock_expiry_idx', [SCHEMA]);
  await knex.raw('alter table ??.esims drop column if exists test_clock', [SCHEMA]);
  await knex.raw('alter table ??.orders drop column if exists test_clock', [SCHEMA]);
  await knex.raw('drop table if exists ??.test_clocks', [SCHEMA]);
}
