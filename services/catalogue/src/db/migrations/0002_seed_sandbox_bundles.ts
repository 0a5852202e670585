import type { Knex } from 'knex';
import { SANDBOX_BUNDLES } from './sandbox-bundles.ts';
import { SCHEMA } from '../schema.ts';

export async function up(knex: Knex): Promise<void> {
  await knex
    .withSchema(SCHEMA)
    .table('bundles')
    .insert(SANDBOX_BUNDLES.map((b) => ({ ...b })));
}

export async function down(knex: Knex): Promise<void> {
  await knex
    .withSchema(SCHEMA)
    .table('bundles')
    .whereIn(
      'name',
      SANDBOX_BUNDLES.map((b) => b.name),
    )
    .delete();
}
