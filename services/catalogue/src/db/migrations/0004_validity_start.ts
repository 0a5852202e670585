import type { Knex } from 'knex';
import { FIRST_USE_SANDBOX_BUNDLES } from './sandbox-bundles.ts';
import { SCHEMA } from '../schema.ts';

/**
 * When a bundle's validity starts counting (record 0230): every bundle seeded so far counts from
 * purchase (their behaviour is unchanged); the sandbox gains `first_use` bundles beside them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table ??.bundles add column validity_start text not null default 'purchase'
      check (validity_start in ('purchase', 'first_use'))`,
    [SCHEMA],
  );
  await knex
    .withSchema(SCHEMA)
    .table('bundles')
    .insert(
      FIRST_USE_SANDBOX_BUNDLES.map(({ name, description, data_mb, unlimited, duration_days, countries, region, price_cents, retired, validity_start }) => ({
        name,
        description,
        data_mb,
        unlimited,
        duration_days,
        countries,
        region,
        price_cents,
        retired,
        validity_start,
      })),
    );
}

export async function down(knex: Knex): Promise<void> {
  await knex
    .withSchema(SCHEMA)
    .table('bundles')
    .whereIn(
      'name',
      FIRST_USE_SANDBOX_BUNDLES.map((b) => b.name),
    )
    .delete();
  await knex.raw('alter table ??.bundles drop column validity_start', [SCHEMA]);
}
