import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oneStatement } from '../src/db/one-statement.ts';
import type { Database } from '../src/db/types.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';

// Starting PGlite (a WASM Postgres) takes a few seconds on a cold machine.
const SETUP_TIMEOUT = 60_000;

describe.each(testDatabaseBackends())('oneStatement on $kind', ({ create }) => {
  let db: Database;
  beforeAll(async () => {
    db = await create();
    await db.knex.schema.createTable('os_parents', (t) => {
      t.text('id').primary();
      t.specificType('marks', 'integer[]').notNullable();
      t.specificType('tags', 'text[]').notNullable().defaultTo('{}');
      t.jsonb('doc').notNullable();
    });
    await db.knex.schema.createTable('os_children', (t) => {
      t.text('id').primary();
      t.text('parent_id').notNullable().references('id').inTable('os_parents');
    });
    await db.knex.schema.createTable('os_claims', (t) => {
      t.text('id').primary();
      t.text('status').notNullable();
    });
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  test('writes a parent and its children together, arrays and JSON as the builder meant them', async () => {
    const statement = oneStatement();
    const committed: string[] = [];
    statement.add(db.knex('os_parents').insert({ id: 'p1', marks: [], doc: JSON.stringify({ quote: `it's "?" \\ ok` }) }));
    statement.add(db.knex('os_parents').insert({ id: 'p2', marks: [50, 80], tags: ['a "b"', 'c\\d', 'e,f', null], doc: JSON.stringify([1, 2]) }));
    statement.add(db.knex('os_children').insert([{ id: 'c1', parent_id: 'p1' }, { id: 'c2', parent_id: 'p2' }]));
    statement.afterCommit(() => committed.push('done'));
    await statement.run(db.knex);

    expect(committed).toEqual(['done']);
    const parents = await db.knex('os_parents').orderBy('id').select('id', 'marks', 'tags', 'doc');
    expect(parents).toEqual([
      { id: 'p1', marks: [], tags: [], doc: { quote: `it's "?" \\ ok` } },
      { id: 'p2', marks: [50, 80], tags: ['a "b"', 'c\\d', 'e,f', null], doc: [1, 2] },
    ]);
    expect(await db.knex('os_children').orderBy('id').pluck('id')).toEqual(['c1', 'c2']);
  });

  test('a failing write undoes every other write of the statement', async () => {
    const statement = oneStatement();
    const committed: string[] = [];
    statement.add(db.knex('os_parents').insert({ id: 'p3', marks: [], doc: '{}' }));
    // Duplicate key: the whole statement fails.
    statement.add(db.knex('os_children').insert({ id: 'c1', parent_id: 'p3' }));
    statement.afterCommit(() => committed.push('done'));
    await expect(statement.run(db.knex)).rejects.toMatchObject({ code: '23505' });
    expect(committed).toEqual([]);
    expect(await db.knex('os_parents').where({ id: 'p3' }).first()).toBeUndefined();
  });

  test('a required write that changes no row refuses the statement with its own error, and writes nothing', async () => {
    await db.knex('os_claims').insert({ id: 'held', status: 'in_progress' });
    const refused = new Error('claim lost');
    const attempt = (claim: string) => {
      const statement = oneStatement();
      statement.add(db.knex('os_parents').insert({ id: `after-${claim}`, marks: [1], doc: '{}' }));
      statement.require(db.knex('os_claims').where({ id: claim, status: 'in_progress' }).update({ status: 'completed' }), () => refused);
      return statement.run(db.knex);
    };

    await expect(attempt('lost')).rejects.toBe(refused);
    expect(await db.knex('os_parents').where({ id: 'after-lost' }).first()).toBeUndefined();

    await attempt('held');
    expect(await db.knex('os_claims').where({ id: 'held' }).first()).toEqual({ id: 'held', status: 'completed' });
    expect(await db.knex('os_parents').where({ id: 'after-held' }).first()).toBeDefined();
    // The same claim cannot be completed twice.
    await expect(attempt('held')).rejects.toBe(refused);
  });

  test('inside a transaction: one statement of it, and afterCommit waits for the commit (never on rollback)', async () => {
    const committed: string[] = [];
    await expect(
      db.knex.transaction(async (trx) => {
        const statement = oneStatement();
        statement.add(trx('os_parents').insert({ id: 'rolled-back', marks: [], doc: '{}' }));
        statement.afterCommit(() => committed.push('rolled-back'));
        await statement.run(trx);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await db.knex.transaction(async (trx) => {
      const statement = oneStatement();
      statement.add(trx('os_parents').insert({ id: 'in-trx', marks: [], doc: '{}' }));
      statement.afterCommit(() => committed.push('in-trx'));
      await statement.run(trx);
      expect(committed).toEqual([]);
    });
    await Promise.resolve();
    expect(committed).toEqual(['in-trx']);
    expect(await db.knex('os_parents').whereIn('id', ['rolled-back', 'in-trx']).pluck('id')).toEqual(['in-trx']);
  });
});
