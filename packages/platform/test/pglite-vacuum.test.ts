import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase, MEMORY_DATA_DIR } from '../src/db/create-database.ts';
import { vacuumDueTables } from '../src/db/pglite-vacuum.ts';
import type { Database } from '../src/db/types.ts';

const SETUP_TIMEOUT = 180_000;

interface TableStats {
  n_live_tup: number;
  n_dead_tup: number;
  last_vacuum: Date | null;
}

/**
 * The embedded database's stand-in for autovacuum (record 0267): PGlite runs none, so rows a busy
 * table deletes would stay behind forever and every scan would walk them.
 */
describe('the embedded database vacuums its tables', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createDatabase({ dataDir: MEMORY_DATA_DIR, vacuumIntervalMs: 100 });
    await db.knex.raw('create table churn (id serial primary key, at timestamptz not null default now())');
    await db.knex.raw('create table quiet (id serial primary key)');
    await db.knex.raw('insert into quiet select from generate_series(1, 10)');
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  const statsOf = async (table: string): Promise<TableStats> => {
    await db.knex.raw('select pg_stat_force_next_flush()');
    const { rows } = await db.knex.raw<{ rows: TableStats[] }>(
      'select n_live_tup::int, n_dead_tup::int, last_vacuum from pg_stat_user_tables where relname = ?',
      [table],
    );
    return rows[0] as TableStats;
  };
  /** A table used as a queue or a log: rows written and deleted, a thousand at a time. */
  const churn = async (rounds: number) => {
    for (let i = 0; i < rounds; i += 1) {
      await db.knex.raw('insert into churn (at) select now() from generate_series(1, 1000)');
      await db.knex.raw('delete from churn where id in (select id from churn order by id limit 1000)');
    }
  };

  test('a pass vacuums the tables whose dead rows passed the thresholds, and only those', async () => {
    await churn(5);
    await db.knex.raw('delete from quiet where id = 1');
    const result = await vacuumDueTables(db.knex);
    expect(result.done).toBeGreaterThanOrEqual(1);
    const churned = await statsOf('churn');
    expect(churned.n_dead_tup).toBe(0);
    expect(churned.last_vacuum).not.toBeNull();
    // One dead row of ten is under PostgreSQL's threshold (50 + 20 % of the live rows).
    const quiet = await statsOf('quiet');
    expect(quiet.n_dead_tup).toBe(1);
    expect(quiet.last_vacuum).toBeNull();
  });

  test('runs on its own, every interval, while the database is open', async () => {
    await churn(3);
    expect((await statsOf('churn')).n_dead_tup).toBeGreaterThanOrEqual(3_000);
    const deadline = Date.now() + 10_000;
    let dead = Number.POSITIVE_INFINITY;
    while (Date.now() < deadline) {
      dead = (await statsOf('churn')).n_dead_tup;
      if (dead === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(dead).toBe(0);
  });
});
