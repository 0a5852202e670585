import type { Knex } from 'knex';
import { SANDBOX_BUNDLES } from './sandbox-bundles.ts';
import { SCHEMA } from '../schema.ts';

export async function up(knex: Knex): Promise<void> {
  await knex
    .withSchema(SCHEMA)
    .table('bundles')
    // The columns of migration 0001 only: later fields have their own migrations (0004).
    .insert(
      SANDBOX_BUNDLES.map(({ name, description, data_mb, unlimited, duration_days, countries, region, price_cents, retired }) => ({
        name,
        description,
        data_mb,
        unlimited,
        duration_days,
        countries,
        region,
        price_cents,
        retired,
      })),
    );
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
