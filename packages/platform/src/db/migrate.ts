import type { Knex } from 'knex';
import type { Migration, MigrationSet } from './types.ts';

/** What a migration run did: the names it applied (empty when the schema was up to date). */
export interface MigrationResult {
  schema: string;
  applied: string[];
}

/**
 * Brings a service's schema up to date: creates the schema if missing, then runs the set's
 * pending migrations with knex's migrator, keeping the history in `<schema>.knex_migrations`
 * so every service has its own. Everything runs in ONE transaction that first takes a
 * transaction-scoped advisory lock on the schema name: two processes starting at once queue on
 * the lock instead of racing knex's create-table-if-missing steps (which are not race-safe),
 * and the whole run uses a single connection, so it holds PGlite's one backend throughout.
 */
export async function runMigrations(knex: Knex, set: MigrationSet): Promise<MigrationResult> {
  const names = migrationNames(set);
  return knex.transaction(async (trx) => {
    await lockSchema(trx, set.schema);
    await trx.raw('create schema if not exists ??', [set.schema]);
    const [, applied] = (await trx.migrate.latest(migratorConfig(set, names))) as [number, string[]];
    return { schema: set.schema, applied };
  });
}

/** Undoes the set's last batch (or every batch with `all`); for tests and local resets. */
export async function rollbackMigrations(knex: Knex, set: MigrationSet, options: { all?: boolean } = {}): Promise<MigrationResult> {
  const names = migrationNames(set);
  return knex.transaction(async (trx) => {
    await lockSchema(trx, set.schema);
    await trx.raw('create schema if not exists ??', [set.schema]);
    const [, undone] = (await trx.migrate.rollback(migratorConfig(set, names), options.all ?? false)) as [number, string[]];
    return { schema: set.schema, applied: undone };
  });
}

/** The names of the set's migrations that have been applied, in the order they ran. */
export async function appliedMigrations(knex: Knex, set: MigrationSet): Promise<string[]> {
  const exists = await knex.schema.withSchema(set.schema).hasTable('knex_migrations');
  if (!exists) return [];
  const names: string[] = await knex.withSchema(set.schema).from('knex_migrations').orderBy('id').pluck('name');
  return names;
}

async function lockSchema(trx: Knex.Transaction, schema: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`migrations:${schema}`]);
}

function migrationNames(set: MigrationSet): string[] {
  const names = Object.keys(set.migrations);
  const sorted = [...names].sort();
  // Migrations run in name order; a set written in another order is almost certainly a naming
  // mistake (e.g. a missing numeric prefix), so refuse it rather than run it in a surprising order.
  if (names.some((name, i) => name !== sorted[i])) {
    throw new Error(`migrations of schema "${set.schema}" must be listed in ascending name order (e.g. 001_init, 002_...): got ${names.join(', ')}`);
  }
  return sorted;
}

function migratorConfig(set: MigrationSet, names: string[]): Knex.MigratorConfig {
  const source: Knex.MigrationSource<string> = {
    getMigrations: () => Promise.resolve(names),
    getMigrationName: (name) => name,
    getMigration: (name) => Promise.resolve(toKnexMigration(set, name)),
  };
  return { migrationSource: source, schemaName: set.schema, tableName: 'knex_migrations' };
}

function toKnexMigration(set: MigrationSet, name: string): Knex.Migration {
  const migration: Migration | undefined = set.migrations[name];
  if (!migration) throw new Error(`unknown migration "${name}" in schema "${set.schema}"`);
  return {
    up: (knex) => migration.up(knex),
    down: (knex) => {
      if (!migration.down) throw new Error(`migration "${name}" of schema "${set.schema}" cannot be rolled back`);
      return migration.down(knex);
    },
  };
}
