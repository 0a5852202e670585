import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { appliedMigrations, rollbackMigrations, runMigrations } from '../src/db/migrate.ts';
import type { Database, Migration, MigrationSet } from '../src/db/types.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';

const SETUP_TIMEOUT = 60_000;

const createItems = (schema: string): Migration => ({
  up: (knex) =>
    knex.schema.withSchema(schema).createTable('items', (t) => {
      t.text('id').primary();
    }),
  down: (knex) => knex.schema.withSchema(schema).dropTable('items'),
});

const addItemName = (schema: string): Migration => ({
  up: (knex) =>
    knex.schema.withSchema(schema).alterTable('items', (t) => {
      t.text('name');
    }),
  down: (knex) =>
    knex.schema.withSchema(schema).alterTable('items', (t) => {
      t.dropColumn('name');
    }),
});

const schemaExists = async (knex: Knex, schema: string) => (await knex('information_schema.schemata').where('schema_name', schema).first()) !== undefined;

const columnsOf = (knex: Knex, schema: string, table: string) =>
  knex('information_schema.columns').where({ table_schema: schema, table_name: table }).orderBy('column_name').pluck('column_name');

describe.each(testDatabaseBackends())('migrations on $kind', ({ create }) => {
  let db: Database;
  beforeAll(async () => {
    db = await create();
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  test('creates the schema and applies each migration once', async () => {
    const set: MigrationSet = {
      schema: 'svc_once',
      migrations: { '001_items': createItems('svc_once'), '002_item_name': addItemName('svc_once') },
    };
    expect(await schemaExists(db.knex, 'svc_once')).toBe(false);

    expect(await runMigrations(db.knex, set)).toEqual({ schema: 'svc_once', applied: ['001_items', '002_item_name'] });
    expect(await schemaExists(db.knex, 'svc_once')).toBe(true);
    expect(await columnsOf(db.knex, 'svc_once', 'items')).toEqual(['id', 'name']);
    // The history lives in the service's own schema.
    expect(await db.knex.schema.withSchema('svc_once').hasTable('knex_migrations')).toBe(true);
    expect(await db.knex.schema.withSchema('public').hasTable('knex_migrations')).toBe(false);

    // A second run finds nothing to do.
    expect(await runMigrations(db.knex, set)).toEqual({ schema: 'svc_once', applied: [] });
    expect(await appliedMigrations(db.knex, set)).toEqual(['001_items', '002_item_name']);
  });

  test('runs only the migrations added since the last run', async () => {
    const first: MigrationSet = { schema: 'svc_grow', migrations: { '001_items': createItems('svc_grow') } };
    expect((await runMigrations(db.knex, first)).applied).toEqual(['001_items']);
    const grown: MigrationSet = { ...first, migrations: { ...first.migrations, '002_item_name': addItemName('svc_grow') } };
    expect((await runMigrations(db.knex, grown)).applied).toEqual(['002_item_name']);
    expect(await columnsOf(db.knex, 'svc_grow', 'items')).toEqual(['id', 'name']);
  });

  test("keeps each service's history independent", async () => {
    // The same migration names in two services are two different migrations.
    const a: MigrationSet = { schema: 'svc_a', migrations: { '001_items': createItems('svc_a') } };
    const b: MigrationSet = {
      schema: 'svc_b',
      migrations: { '001_items': createItems('svc_b'), '002_item_name': addItemName('svc_b') },
    };
    expect((await runMigrations(db.knex, a)).applied).toEqual(['001_items']);
    expect((await runMigrations(db.knex, b)).applied).toEqual(['001_items', '002_item_name']);
    expect(await appliedMigrations(db.knex, a)).toEqual(['001_items']);
    expect(await columnsOf(db.knex, 'svc_a', 'items')).toEqual(['id']);
    expect(await columnsOf(db.knex, 'svc_b', 'items')).toEqual(['id', 'name']);
  });

  test('a failing migration leaves nothing behind', async () => {
    const set: MigrationSet = {
      schema: 'svc_broken',
      migrations: {
        '001_items': createItems('svc_broken'),
        '002_broken': { up: (knex) => knex.raw('select * from no_such_table') },
      },
    };
    await expect(runMigrations(db.knex, set)).rejects.toThrow(/no_such_table/);
    // One transaction: the first migration and even the schema were rolled back with it.
    expect(await schemaExists(db.knex, 'svc_broken')).toBe(false);
  });

  test('rolls back the last batch', async () => {
    const v1: MigrationSet = { schema: 'svc_back', migrations: { '001_items': createItems('svc_back') } };
    const v2: MigrationSet = { ...v1, migrations: { ...v1.migrations, '002_item_name': addItemName('svc_back') } };
    await runMigrations(db.knex, v1);
    await runMigrations(db.knex, v2);

    expect((await rollbackMigrations(db.knex, v2)).applied).toEqual(['002_item_name']);
    expect(await columnsOf(db.knex, 'svc_back', 'items')).toEqual(['id']);
    expect((await rollbackMigrations(db.knex, v2, { all: true })).applied).toEqual(['001_items']);
    expect(await db.knex.schema.withSchema('svc_back').hasTable('items')).toBe(false);
    expect(await appliedMigrations(db.knex, v2)).toEqual([]);
  });

  test('refuses migrations listed out of name order', async () => {
    const set: MigrationSet = {
      schema: 'svc_order',
      migrations: { '002_item_name': addItemName('svc_order'), '001_items': createItems('svc_order') },
    };
    await expect(runMigrations(db.knex, set)).rejects.toThrow(/ascending name order/);
  });

  test('concurrent runs all succeed and apply each migration once', async () => {
    // On PostgreSQL each run holds its own pooled connection, as separate processes would; on
    // PGlite they queue for the single connection. Either way no run may fail.
    const set: MigrationSet = {
      schema: 'svc_race',
      migrations: { '001_items': createItems('svc_race'), '002_item_name': addItemName('svc_race') },
    };
    const results = await Promise.all(Array.from({ length: 4 }, () => runMigrations(db.knex, set)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(['001_items', '002_item_name']);
    expect(await appliedMigrations(db.knex, set)).toEqual(['001_items', '002_item_name']);
    expect(await columnsOf(db.knex, 'svc_race', 'items')).toEqual(['id', 'name']);
  });
});
