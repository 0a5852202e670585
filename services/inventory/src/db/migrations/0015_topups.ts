import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Top-ups (records 0240-0243):
 * - `topups`, one row per bundle added to an eSIM, with what it added and the eSIM's `expires_at` before
 *   and after it (the bundles list derives each bundle's window and state from them);
 * - `esim_states_before_expiry`: the state each eSIM was in when it last moved to `expired`, written by a
 *   trigger on `esims` so that every path that expires an eSIM (PATCH, usage, the sweeper, a test clock,
 *   a supplier's report) keeps it without knowing about top-ups; a revived eSIM goes back to it;
 * - balance transactions of types `topup` and `topup_release` (a top-up is paid as an order is).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.topups (
      id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      esim_id text not null,
      bundle text not null,
      data_limit_bytes bigint check (data_limit_bytes >= 0),
      duration_days integer,
      price_cents bigint not null check (price_cents >= 0),
      currency text not null,
      status text not null,
      previous_expires_at bigint,
      expires_at bigint,
      created_at bigint not null
    )`,
    [SCHEMA],
  );
  await knex.raw('create index topups_esim_idx on ??.topups (esim_id, created_at, id)', [SCHEMA]);

  await knex.raw(
    `create table ??.esim_states_before_expiry (
      esim_id text primary key,
      state text not null check (state in ('released', 'installed', 'active', 'suspended'))
    )`,
    [SCHEMA],
  );
  await knex.raw(
    `create function ??.remember_state_before_expiry() returns trigger language plpgsql as $$
    begin
      insert into ${SCHEMA}.esim_states_before_expiry (esim_id, state) values (new.id, old.state)
        on conflict (esim_id) do update set state = excluded.state;
      return new;
    end
    $$`,
    [SCHEMA],
  );
  await knex.raw(
    `create trigger esims_remember_state_before_expiry after update of state on ??.esims
      for each row when (new.state = 'expired' and old.state <> 'expired')
      execute function ??.remember_state_before_expiry()`,
    [SCHEMA, SCHEMA],
  );

  await knex.raw('alter table ??.balance_transactions drop constraint balance_transactions_type_check', [SCHEMA]);
  await knex.raw(
    `alter table ??.balance_transactions add constraint balance_transactions_type_check
      check (type in ('order', 'order_release', 'refund', 'credit', 'adjustment', 'topup', 'topup_release'))`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists esims_remember_state_before_expiry on ??.esims', [SCHEMA]);
  await knex.raw('drop function if exists ??.remember_state_before_expiry()', [SCHEMA]);
  await knex.raw('drop table if exists ??.esim_states_before_expiry', [SCHEMA]);
  await knex.raw('drop table if exists ??.topups', [SCHEMA]);
}
