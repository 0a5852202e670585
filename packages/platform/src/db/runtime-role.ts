import type { Knex } from 'knex';

/**
 * Lets a service's runtime login use its schema and nothing else: read and write the rows of
 * every table (and take the next value of every sequence), read but never write the migration
 * history, and no DDL. The schema and its tables stay the migrations' (the owner login's), so a
 * service cannot change its tables, and, given no grant on any other schema, cannot read another
 * service's rows (docs/decisions/0224-a-database-login-per-service.md). Run after every migration
 * run: `on all tables` covers the tables that run made.
 */
export async function grantSchemaToRole(knex: Knex, schema: string, role: string): Promise<void> {
  const found = await knex.raw<{ rows: unknown[] }>('select 1 from pg_roles where rolname = ?', [role]);
  if (found.rows.length === 0) throw new Error(`the runtime login ${role} of schema ${schema} does not exist: create it first (docs/deploy.md)`);
  await knex.transaction(async (trx) => {
    await trx.raw('grant usage on schema ?? to ??', [schema, role]);
    await trx.raw('grant select, insert, update, delete on all tables in schema ?? to ??', [schema, role]);
    await trx.raw('revoke insert, update, delete, truncate on table ??.??, ??.?? from ??', [schema, 'knex_migrations', schema, 'knex_migrations_lock', role]);
    await trx.raw('grant usage, select, update on all sequences in schema ?? to ??', [schema, role]);
  });
}
