import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Metadata of orders and eSIMs (the integrator's own key-value pairs), as jsonb. The GIN index
 * (jsonb_path_ops: containment only, smaller than the default operator class) serves the list
 * filter `metadata @> '{"key":"value"}'`. Adding a column with a constant default rewrites no row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw("alter table ??.orders add column metadata jsonb not null default '{}'::jsonb", [SCHEMA]);
  await knex.raw("alter table ??.esims add column metadata jsonb not null default '{}'::jsonb", [SCHEMA]);
  await knex.raw('create index esims_metadata_idx on ??.esims using gin (metadata jsonb_path_ops)', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ??.esims_metadata_idx', [SCHEMA]);
  await knex.raw('alter table ??.esims drop column if exists metadata', [SCHEMA]);
  await knex.raw('alter table ??.orders drop column if exists metadata', [SCHEMA]);
}
