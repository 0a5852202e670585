import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase } from '../src/db/create-database.ts';
import type { Database } from '../src/db/types.ts';
import { createTestDatabase, testDatabaseBackends } from '../src/testing/database.ts';

// Starting PGlite (a WASM Postgres) takes a few seconds on a cold machine.
// Each test starts PGlite (a WebAssembly Postgres) once or more: seconds alone, far more on a loaded shared machine.
const SETUP_TIMEOUT = 180_000;

describe.each(testDatabaseBackends())('database on $kind', ({ kind, create }) => {
  let db: Database;
  beforeAll(async () => {
    db = await create();
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  test('connects, reports its kind and answers ping', async () => {
    expect(db.kind).toBe(kind);
    await expect(db.ping()).resolves.toBeUndefined();
    const { rows } = await db.knex.raw<{ rows: { one: number }[] }>('select 1 as one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  test('commits and rolls back transactions', async () => {
    await db.knex.schema.createTable('tx_items', (t) => {
      t.text('id').primary();
    });
    await db.knex.transaction(async (trx) => {
      await trx('tx_items').insert({ id: 'kept' });
    });
    await expect(
      db.knex.transaction(async (trx) => {
        await trx('tx_items').insert({ id: 'dropped' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.knex('tx_items').pluck('id')).toEqual(['kept']);
  });

  test('two concurrent transactions both complete', async () => {
    await db.knex.schema.createTable('concurrent_steps', (t) => {
      t.increments('seq');
      t.text('trx');
    });
    const run = (name: string) =>
      db.knex.transaction(async (trx) => {
        await trx('concurrent_steps').insert({ trx: name });
        await trx.raw('select 1');
        await trx('concurrent_steps').insert({ trx: name });
      });
    await Promise.all([run('a'), run('b')]);

    const order = await db.knex('concurrent_steps').orderBy('seq').pluck('trx');
    expect([...order].sort()).toEqual(['a', 'a', 'b', 'b']);
    if (kind === 'pglite') {
      // One connection: the second transaction waits for the pool, so they never interleave.
      expect([
        ['a', 'a', 'b', 'b'],
        ['b', 'b', 'a', 'a'],
      ]).toContainEqual(order);
    }
  });
});

/** This process's threads (Linux): a worker thread is one from the moment it is made. */
const threadCount = () => readdirSync('/proc/self/task').length;

describe('embedded PGlite', () => {
  test(
    "keeps its data on disk across close and reopen, and reopens it on its worker thread before the caller's next await",
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-db-'));
      try {
        const first = await createDatabase({ dataDir });
        expect(first.kind).toBe('pglite');
        await first.knex.raw('create schema inventory');
        await first.knex.schema.withSchema('inventory').createTable('esims', (t) => {
          t.text('id').primary();
        });
        await first.knex.withSchema('inventory').table('esims').insert({ id: 'esim_1' });
        await first.close();
        expect(existsSync(path.join(dataDir, 'pglite'))).toBe(true);

        // The launcher loads the app's modules while an existing data directory opens (record
        // 0271): the worker thread must exist when createDatabase returns, nothing awaited first.
        const threadsBefore = threadCount();
        const opening = createDatabase({ dataDir });
        expect(threadCount()).toBeGreaterThan(threadsBefore);
        const second = await opening;
        try {
          expect(await second.knex.withSchema('inventory').from('esims').pluck('id')).toEqual(['esim_1']);
        } finally {
          await second.close();
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT,
  );

  test(
    'a new data directory is made whole or not at all: an empty folder is taken over, a staging folder never stays',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-db-'));
      try {
        // An empty folder where the data directory goes (an interrupted start of an older version),
        // and the staging folder of a first start that was killed.
        await mkdir(path.join(dataDir, 'pglite'));
        await mkdir(path.join(dataDir, 'pglite.init-999999'));
        await writeFile(path.join(dataDir, 'pglite.init-999999', 'PG_VERSION'), '17');
        const db = await createDatabase({ dataDir });
        try {
          await expect(db.ping()).resolves.toBeUndefined();
        } finally {
          await db.close();
        }
        expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
        expect((await readdir(dataDir)).sort()).toEqual(['pglite']);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT,
  );

  test(
    'a folder holding files that are not a database is not touched: opening it fails',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-db-'));
      try {
        await mkdir(path.join(dataDir, 'pglite'));
        await writeFile(path.join(dataDir, 'pglite', 'notes.txt'), 'mine');
        await expect(createDatabase({ dataDir })).rejects.toThrow(/not a PostgreSQL data directory/);
        expect(await readFile(path.join(dataDir, 'pglite', 'notes.txt'), 'utf8')).toBe('mine');
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT,
  );

  test(
    'serves every caller from its one backend, and close is idempotent',
    async () => {
      const db = await createDatabase({ dataDir: 'memory://' });
      try {
        // Many callers at once all get an answer, from the same single backend.
        const pids = await Promise.all(
          Array.from({ length: 5 }, async () => {
            const { rows } = await db.knex.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
            return rows[0]?.pid;
          }),
        );
        expect(new Set(pids).size).toBe(1);
      } finally {
        await Promise.all([db.close(), db.close()]);
      }
      await expect(db.ping()).rejects.toThrow();
    },
    SETUP_TIMEOUT,
  );

  test(
    'is reached through a Unix socket in a folder only its user may enter, and keeps its files to its user',
    async () => {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'platform-db-'));
      const db = await createDatabase({ dataDir });
      try {
        await db.ping();
        const connection = (db.knex.client as { config: { connection: { host: string } } }).config.connection;
        // No TCP port: the host is the socket's folder, mode 0700.
        expect(connection.host.startsWith('/')).toBe(true);
        expect((await stat(connection.host)).mode & 0o777).toBe(0o700);
        expect(existsSync(path.join(connection.host, '.s.PGSQL.5432'))).toBe(true);
        // The data folder is closed to everyone else.
        expect((await stat(path.join(dataDir, 'pglite'))).mode & 0o777).toBe(0o700);
        await db.close();
        expect(existsSync(connection.host)).toBe(false);

        // What the WASM file system left wider than 0600 is set right at the next start.
        const widened = path.join(dataDir, 'pglite', 'PG_VERSION');
        await chmod(widened, 0o666);
        const reopened = await createDatabase({ dataDir });
        try {
          expect((await stat(widened)).mode & 0o777).toBe(0o600);
        } finally {
          await reopened.close();
        }
      } finally {
        await db.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    SETUP_TIMEOUT,
  );

  test(
    'runs in a thread of its own: a query in progress never holds up the process',
    async () => {
      const db = await createDatabase({ dataDir: 'memory://' });
      try {
        await db.ping();
        // PGlite executes a query synchronously in WASM: in the services' own thread a 2 s query
        // would hold every timer and request until it ended (a 50 ms timer then fires after 2 s).
        const started = performance.now();
        const timerFiredAfter = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - started), 50));
        await db.knex.raw('select pg_sleep(2)');
        expect(await timerFiredAfter).toBeLessThan(1_000);
      } finally {
        await db.close();
      }
    },
    SETUP_TIMEOUT,
  );
});

describe('PostgreSQL server', () => {
  test('ping fails when the server is unreachable', async () => {
    // Port 1 on loopback refuses connections: nothing listens there.
    const db = await createDatabase({ databaseUrl: 'postgres://postgres@127.0.0.1:1/postgres', acquireConnectionTimeoutMs: 2_000 });
    try {
      expect(db.kind).toBe('postgres');
      await expect(db.ping()).rejects.toThrow();
    } finally {
      await db.close();
    }
  });

  // Runs on whichever backend the suite is given: isolation always, the drop on PostgreSQL.
  test(
    'createTestDatabase gives each caller its own database and drops it on close',
    async () => {
      const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
      await a.knex.schema.createTable('only_in_a', (t) => {
        t.text('id');
      });
      expect(await b.knex.schema.hasTable('only_in_a')).toBe(false);
      expect(a.kind).toBe(process.env.DATABASE_URL ? 'postgres' : 'pglite');
      if (a.kind === 'pglite') {
        await Promise.all([a.close(), b.close()]);
        return;
      }
      const nameOf = async (db: Database) => (await db.knex.raw<{ rows: { name: string }[] }>('select current_database() as name')).rows[0]?.name;
      const nameA = (await nameOf(a)) ?? '';
      const nameB = (await nameOf(b)) ?? '';
      expect(nameA).toMatch(/^test_/);
      expect(nameA).not.toBe(nameB);
      await Promise.all([a.close(), b.close()]);
      const admin = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL as string, pool: { min: 0, max: 1 } });
      try {
        const left = await admin('pg_database').whereIn('datname', [nameA, nameB]).pluck('datname');
        expect(left).toEqual([]);
      } finally {
        await admin.destroy();
      }
    },
    SETUP_TIMEOUT,
  );
});
