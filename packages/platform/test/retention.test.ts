import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { Database } from '../src/db/types.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';
import { deleteLockedBatch, startRetentionSweep, type RetentionStep } from '../src/work/retention.ts';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 10, 28);

/**
 * The platform's retention sweep on a real table: rows past their time go, a batch per
 * statement, passes following each other at once while batches come back full; a step runs once
 * the steps before it left no full batch; the rows another transaction holds are skipped.
 */
describe.each(testDatabaseBackends())('the retention sweep on $kind', ({ kind, create }) => {
  let db: Database;
  let knex: Knex;
  const table = 'retention_test.items';

  beforeAll(async () => {
    db = await create();
    knex = db.knex;
    await knex.raw('create schema if not exists retention_test');
    await knex.schema.withSchema('retention_test').createTable('items', (t) => {
      t.text('id').primary();
      t.text('kind').notNullable();
      t.bigInteger('created_ms').notNullable();
    });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await knex.table(table).delete();
  });

  const insert = async (kind: string, count: number, ageMs: number) =>
    knex.table(table).insert(Array.from({ length: count }, (_, i) => ({ id: `${kind}-${ageMs}-${i}`, kind, created_ms: NOW - ageMs })));
  const left = async () =>
    ((await knex.table(table).select('kind').count({ n: '*' }).groupBy('kind').orderBy('kind')) as { kind: string; n: string | number }[]).map(
      (row) => `${row.kind}:${Number(row.n)}`,
    );
  /** A step over one kind of row, counting the statements it ran. */
  const stepOf = (kind: string, batches: number[], keepMs?: number): RetentionStep => ({
    what: kind,
    ...(keepMs !== undefined && { keepMs }),
    deleteBatch: async (cutoffMs, limit) => {
      const taken = await deleteLockedBatch(knex, {
        due: (trx) => trx.table(table).select('id').where({ kind }).andWhere('created_ms', '<', cutoffMs).orderBy('id'),
        limit,
        remove: (trx, ids) => trx.table(table).whereIn('id', ids).delete(),
      });
      batches.push(taken);
      return taken;
    },
  });
  const sweep = (steps: RetentionStep[], batch: number) =>
    startRetentionSweep({ name: 'test retention', intervalMs: 3_600_000, keepMs: 7 * DAY_MS, batch, steps, now: () => NOW });

  test('deletes every row past the retention, a batch per statement, and keeps the younger ones', async () => {
    await insert('old', 25, 8 * DAY_MS);
    await insert('young', 5, 6 * DAY_MS);
    const batches: number[] = [];
    const poller = sweep([stepOf('old', batches), stepOf('young', [])], 10);
    try {
      // One call runs passes until a batch comes back short.
      expect(await poller.runOnce()).toBe(25);
    } finally {
      await poller.stop();
    }
    expect(batches).toEqual([10, 10, 5]);
    expect(await left()).toEqual(['young:5']);
  });

  test('a later step waits for the full batches of the one before it, and may keep its rows a time of its own', async () => {
    await insert('first', 12, 8 * DAY_MS);
    await insert('second', 3, 2 * DAY_MS);
    await insert('second', 2, 12 * 3_600_000);
    const first: number[] = [];
    const second: number[] = [];
    const poller = sweep([stepOf('first', first), stepOf('second', second, DAY_MS)], 5);
    try {
      expect(await poller.runOnce()).toBe(15);
    } finally {
      await poller.stop();
    }
    // The second step ran only in the pass where the first had less than a batch left.
    expect(first).toEqual([5, 5, 2]);
    expect(second).toEqual([3]);
    expect(await left()).toEqual(['second:2']);
  });

  // PGlite has one connection: no second transaction to hold the rows. PostgreSQL shows it.
  if (kind === 'postgres')
    test('rows another transaction holds are skipped, not waited for', async () => {
      await insert('old', 4, 8 * DAY_MS);
      const poller = sweep([stepOf('old', [])], 10);
      try {
        await knex.transaction(async (trx) => {
          await trx.table(table).select('id').whereIn('id', ['old-691200000-0', 'old-691200000-1']).forUpdate();
          expect(await poller.runOnce()).toBe(2);
        });
      } finally {
        await poller.stop();
      }
      expect(await left()).toEqual(['old:2']);
    });
});
