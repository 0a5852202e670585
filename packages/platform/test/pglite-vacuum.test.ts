import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase, MEMORY_DATA_DIR } from '../src/db/create-database.ts';
import { vacuumDueTables } from '../src/db/pglite-vacuum.ts';
import type { Database } from '../src/db/types.ts';

const SETUP_TIMEOUT = 180_000;

interface TableStats {
  n_live_tup: number;
  n_dead_tup: number;
  vacuum_count: number;
}

/** An embedded database with a busy table (`churn`) and a quiet one, its vacuum run every `vacuumIntervalMs`. */
async function embedded(vacuumIntervalMs: number) {
  const db: Database = await createDatabase({ dataDir: MEMORY_DATA_DIR, vacuumIntervalMs });
  await db.knex.raw('create table churn (id serial primary key, at timestamptz not null default now())');
  await db.knex.raw('create table quiet (id serial primary key)');
  await db.knex.raw('insert into quiet select from generate_series(1, 10)');
  return {
    db,
    async statsOf(table: string): Promise<TableStats> {
      await db.knex.raw('select pg_stat_force_next_flush()');
      const { rows } = await db.knex.raw<{ rows: TableStats[] }>(
        'select n_live_tup::int, n_dead_tup::int, vacuum_count::int from pg_stat_user_tables where relname = ?',
        [table],
      );
      return rows[0] as TableStats;
    },
    /** A table used as a queue or a log: rows written and deleted, a thousand at a time. */
    async churn(rounds: number) {
      for (let i = 0; i < rounds; i += 1) {
        await db.knex.raw('insert into churn (at) select now() from generate_series(1, 1000)');
        await db.knex.raw('delete from churn where id in (select id from churn order by id limit 1000)');
      }
    },
  };
}

/**
 * The embedded database's stand-in for autovacuum (record 0267): PGlite runs none, so rows a busy
 * table deletes would stay behind forever and every scan would walk them.
 */
describe('a vacuum pass of the embedded database', () => {
  // Its own poller waits an hour here: the pass under test is the only one.
  let e: Awaited<ReturnType<typeof embedded>>;
  beforeAll(async () => {
    e = await embedded(3_600_000);
  }, SETUP_TIMEOUT);
  afterAll(() => e?.db.close());

  test('vacuums the tables whose dead rows passed the thresholds, and only those', async () => {
    await e.churn(5);
    await e.db.knex.raw('delete from quiet where id = 1');
    expect((await e.statsOf('churn')).n_dead_tup).toBe(5_000);
    const result = await vacuumDueTables(e.db.knex);
    expect(result.done).toBeGreaterThanOrEqual(1);
    const churned = await e.statsOf('churn');
    expect(churned.n_dead_tup).toBe(0);
    expect(churned.vacuum_count).toBe(1);
    // One dead row of ten is under PostgreSQL's threshold (50 + 20 % of the live rows).
    const quiet = await e.statsOf('quiet');
    expect(quiet.n_dead_tup).toBe(1);
    expect(quiet.vacuum_count).toBe(0);
  });
});

describe('the embedded database', () => {
  let e: Awaited<ReturnType<typeof embedded>>;
  beforeAll(async () => {
    e = await embedded(100);
  }, SETUP_TIMEOUT);
  afterAll(() => e?.db.close());

  test('vacuums its busy tables on its own, every interval, while it is open', async () => {
    const before = (await e.statsOf('churn')).vacuum_count;
    await e.churn(3);
    const deadline = Date.now() + 10_000;
    let stats = await e.statsOf('churn');
    while (Date.now() < deadline && !(stats.vacuum_count > before && stats.n_dead_tup === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stats = await e.statsOf('churn');
    }
    expect(stats.vacuum_count).toBeGreaterThan(before);
    expect(stats.n_dead_tup).toBe(0);
  });
});

describe('a failed vacuum pass', () => {
  test(
    'is logged, and the next passes are tried again',
    async () => {
      const errors: unknown[] = [];
      const logger = { error: (entry: unknown) => errors.push(entry), info: () => undefined };
      const db = await createDatabase({ dataDir: MEMORY_DATA_DIR, vacuumIntervalMs: 50, logger });
      try {
        // The pass's first statement made to fail on the one connection: a function of the same name,
        // found first once the session's search_path puts it before pg_catalog.
        await db.knex.raw(
          `create function public.pg_stat_force_next_flush() returns void language plpgsql as $$ begin raise exception 'statistics unavailable'; end $$`,
        );
        await db.knex.raw('set search_path = public, pg_catalog');
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline && errors.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(errors.length).toBeGreaterThanOrEqual(2);
        expect(JSON.stringify(errors[0])).toContain('embedded database vacuum');
      } finally {
        await db.close();
      }
    },
    SETUP_TIMEOUT,
  );
});
