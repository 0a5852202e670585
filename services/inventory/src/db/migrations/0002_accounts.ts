import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/** What the operator sets per account for live orders: verification and the prepaid balance. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.accounts (
      account_id text primary key,
      verified boolean not null default false,
      live_balance_cents bigint not null default 0 check (live_balance_cents >= 0),
      created_at bigint not null,
      updated_at bigint not null
    )`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.accounts', [SCHEMA]);
}
