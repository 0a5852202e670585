import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/** The operator's live-ordering switch per account; an account with no row has it on. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.live_ordering (
      account_id text primary key,
      enabled boolean not null,
      updated_at bigint not null
    )`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.live_ordering', [SCHEMA]);
}
