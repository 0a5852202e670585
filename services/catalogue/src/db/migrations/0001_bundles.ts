import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/** The sandbox catalogue: one row per bundle, named uniquely; retired rows stay so old names resolve. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.bundles (
      name text primary key,
      description text not null,
      data_mb integer check (data_mb > 0),
      unlimited boolean not null,
      duration_days integer not null check (duration_days between 1 and 365),
      countries text[] not null,
      region text not null,
      price_cents integer not null check (price_cents >= 0),
      retired boolean not null default false,
      created_at timestamptz not null default now(),
      check (unlimited = (data_mb is null))
    )`,
    [SCHEMA],
  );
  // `countries @> array[...]` (cover all the listed countries) uses the GIN index.
  await knex.raw('create index bundles_countries_idx on ??.bundles using gin (countries)', [SCHEMA]);
  await knex.raw('create index bundles_region_idx on ??.bundles (region, name)', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.bundles', [SCHEMA]);
}
