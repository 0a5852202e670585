import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { oneStatement, statementBatcher } from '../src/db/one-statement.ts';
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
    statement.add(
      db.knex('os_children').insert([
        { id: 'c1', parent_id: 'p1' },
        { id: 'c2', parent_id: 'p2' },
      ]),
    );
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

  describe('statementBatcher', () => {
    /** A parent and its child, the child's insert required (it always writes a row), `claim` completed when given. */
    const change = (id: string, committed: string[], claim?: string) => {
      const statement = oneStatement();
      statement.add(db.knex('os_parents').insert({ id, marks: [1], doc: '{}' }));
      statement.require(db.knex('os_children').insert({ id: `${id}-child`, parent_id: id }), () => new Error('never'));
      if (claim !== undefined)
        statement.require(
          db.knex('os_claims').where({ id: claim, status: 'in_progress' }).update({ status: 'completed' }),
          () => new Error(`claim ${claim} lost`),
        );
      statement.afterCommit(() => committed.push(id));
      return statement;
    };
    /** The transaction each parent row was written in. */
    const writtenBy = async (ids: string[]) =>
      Object.fromEntries(
        (await db.knex('os_parents').whereIn('id', ids).select('id', db.knex.raw('xmin::text as xmin'))).map((row: { id: string; xmin: string }) => [
          row.id,
          row.xmin,
        ]),
      );

    test('statements of the same text sent at once are ONE statement (one transaction); others go alongside', async () => {
      const batcher = statementBatcher(db.knex, { name: 'test', max: 10 });
      const committed: string[] = [];
      const other = oneStatement();
      other.add(db.knex('os_claims').insert({ id: 'batch-other', status: 'in_progress' }));
      other.afterCommit(() => committed.push('batch-other'));
      await Promise.all([...['b1', 'b2', 'b3'].map((id) => batcher.run(change(id, committed))), batcher.run(other)]);
      expect(committed.sort()).toEqual(['b1', 'b2', 'b3', 'batch-other']);
      const xmins = await writtenBy(['b1', 'b2', 'b3']);
      expect(new Set(Object.values(xmins)).size).toBe(1);
      expect(await db.knex('os_children').whereIn('parent_id', ['b1', 'b2', 'b3']).count<{ count: string }[]>({ count: '*' })).toEqual([{ count: '3' }]);
      expect(await db.knex('os_claims').where({ id: 'batch-other' }).first()).toBeDefined();
    });

    test('a statement that fails in the merged one fails alone: the others are run alone and commit', async () => {
      await db.knex('os_claims').insert([
        { id: 'batch-held-1', status: 'in_progress' },
        { id: 'batch-held-2', status: 'in_progress' },
      ]);
      const batcher = statementBatcher(db.knex, { name: 'test', max: 10 });
      const committed: string[] = [];
      const outcomes = await Promise.allSettled([
        batcher.run(change('f1', committed, 'batch-held-1')),
        batcher.run(change('f2', committed, 'batch-lost')),
        batcher.run(change('f3', committed, 'batch-held-2')),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('claim batch-lost lost'));
      expect(committed.sort()).toEqual(['f1', 'f3']);
      expect(Object.keys(await writtenBy(['f1', 'f2', 'f3'])).sort()).toEqual(['f1', 'f3']);
      expect(await db.knex('os_claims').whereIn('id', ['batch-held-1', 'batch-held-2']).pluck('status')).toEqual(['completed', 'completed']);
    });
  });
});
