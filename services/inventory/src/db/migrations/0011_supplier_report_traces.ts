import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * The trace of the callback that stored a supplier report (its W3C headers), so the worker that
 * applies the report later continues that trace and the eSIM's events join it; and an index on
 * when a report was applied, for the inbox's retention (record 0153). A nullable column and an
 * index only: the previous release keeps working during a rolling deploy (its rows carry no trace).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.supplier_reports add column trace_headers jsonb', [SCHEMA]);
  await knex.raw('create index supplier_reports_applied_idx on ??.supplier_reports (applied_at) where applied_at is not null', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ??.supplier_reports_applied_idx', [SCHEMA]);
  await knex.raw('alter table ??.supplier_reports drop column trace_headers', [SCHEMA]);
}
