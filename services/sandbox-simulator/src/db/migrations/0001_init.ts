import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}

export async function down(): Promise<void> {}
