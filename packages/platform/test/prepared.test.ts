import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runPrepared } from '../src/db/prepared.ts';
import type { Database } from '../src/db/types.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';

describe.each(testDatabaseBackends())('runPrepared on $kind', ({ create }) => {
  let db: Database;
  beforeAll(async () => {
    db = await create();
    await db.knex.raw('create table prepared_items (id text primary key, n integer not null)');
  }, 60_000);
  afterAll(() => db?.close());

  const insert = (id: string, n: number) =>
    runPrepared<{ id: string }>(db.knex, 'insert into prepared_items (id, n) values (?, ?) on conflict (id) do nothing returning id', [id, n]);

  test('runs the same statement again and again (prepared once per connection), with its bindings each time', async () => {
    expect(await insert('a', 1)).toEqual({ rows: [{ id: 'a' }], rowCount: 1 });
    expect(await insert('b', 2)).toEqual({ rows: [{ id: 'b' }], rowCount: 1 });
    expect(await insert('a', 3)).toEqual({ rows: [], rowCount: 0 });
    const counted = await runPrepared<{ n: string }>(db.knex, 'select count(*) as n from prepared_items where n < ?', [3]);
    expect(counted.rows).toEqual([{ n: '2' }]);
  });

  test('on a transaction it runs on that transaction: rolled back with it', async () => {
    await expect(
      db.knex.transaction(async (trx) => {
        await runPrepared(trx, 'insert into prepared_items (id, n) values (?, ?)', ['in-trx', 9]);
        expect((await trx('prepared_items').where({ id: 'in-trx' })).length).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.knex('prepared_items').where({ id: 'in-trx' })).toEqual([]);
  });

  test('an error is the database error, and the connection goes on serving', async () => {
    await expect(runPrepared(db.knex, 'insert into prepared_items (id, n) values (?, ?)', ['c', null])).rejects.toMatchObject({ code: '23502' });
    expect((await insert('c', 4)).rowCount).toBe(1);
  });

  test('identifiers (`??`), an escaped `\\?`, dates and raw values go through knex as before; an undefined binding is refused', async () => {
    const named = await runPrepared<{ id: string }>(db.knex, 'select ?? as id from prepared_items where id = ?', ['id', 'a']);
    expect(named.rows).toEqual([{ id: 'a' }]);
    const question = await runPrepared<{ text: string }>(db.knex, "select '\\?' || ? as text", ['!']);
    expect(question.rows).toEqual([{ text: '?!' }]);
    const at = new Date('2026-01-02T03:04:05.000Z');
    const dated = await runPrepared<{ at: Date }>(db.knex, 'select ?::timestamptz as at', [at]);
    expect(dated.rows[0]?.at.toISOString()).toBe(at.toISOString());
    const raw = await runPrepared<{ n: number }>(db.knex, 'select ? + 1 as n', [db.knex.raw('41')]);
    expect(raw.rows).toEqual([{ n: 42 }]);
    await expect(runPrepared(db.knex, 'select ? as x', [undefined as unknown as string])).rejects.toThrow(/Undefined binding/);
  });

  test('the same text with another number of bindings than placeholders is refused, not sent', async () => {
    await expect(runPrepared(db.knex, 'select ? as x', ['a', 'b'])).rejects.toThrow(/Expected 2 bindings, saw 1/);
  });

  test('with `replan` the statement is planned for each call: nothing is prepared under a name', async () => {
    const prepared = (trx: Parameters<typeof runPrepared>[0], text: string) =>
      trx.raw<{ rows: unknown[] }>('select 1 from pg_prepared_statements where statement = ?', [text]).then((result) => result.rows.length);
    await db.knex.transaction(async (trx) => {
      const once = await runPrepared<{ n: number }>(trx, 'select ?::int + 100 as n', [1], { replan: true });
      expect(once.rows).toEqual([{ n: 101 }]);
      expect(await prepared(trx, 'select $1::int + 100 as n')).toBe(0);
      await runPrepared(trx, 'select ?::int + 100 as n', [2]);
      expect(await prepared(trx, 'select $1::int + 100 as n')).toBe(1);
    });
  });
});
