import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { createDatabase, MEMORY_DATA_DIR } from '../db/create-database.ts';
import type { Database } from '../db/types.ts';

export interface TestDatabaseOptions {
  /** A PostgreSQL server to create the test database on; absent: an in-memory PGlite. */
  databaseUrl?: string | undefined;
  poolMax?: number | undefined;
}

/**
 * A fresh, isolated database for one test file. On a PostgreSQL server (`DATABASE_URL`, or
 * `databaseUrl`) it creates a uniquely named database and drops it on `close()`, so test files
 * running in parallel never see each other's rows; otherwise it is an in-memory PGlite.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<Database> {
  const serverUrl = 'databaseUrl' in options ? options.databaseUrl : process.env.DATABASE_URL;
  if (!serverUrl) return createDatabase({ dataDir: MEMORY_DATA_DIR });
  return createPostgresTestDatabase(serverUrl, options.poolMax);
}

/** A test database on the PostgreSQL server at `serverUrl`, whatever the environment says. */
export async function createPostgresTestDatabase(serverUrl: string, poolMax?: number): Promise<Database> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create database ??', [name]);
  } finally {
    await admin.destroy();
  }

  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await createDatabase({ databaseUrl: url.toString(), poolMax });

  let closing: Promise<void> | undefined;
  const dropDatabase = async () => {
    await db.close();
    const dropper = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
    try {
      // `with (force)` ends connections a test leaked, so a failed test cannot leave the database behind.
      await dropper.raw('drop database if exists ?? with (force)', [name]);
    } finally {
      await dropper.destroy();
    }
  };
  return {
    kind: db.kind,
    knex: db.knex,
    ping: () => db.ping(),
    close() {
      closing ??= dropDatabase();
      return closing;
    },
  };
}

export interface TestDatabaseBackend {
  kind: Database['kind'];
  create: () => Promise<Database>;
}

/**
 * The backends a suite should run on with `describe.each`: always PGlite, and PostgreSQL too
 * when `DATABASE_URL` names a server, so one run covers both adapters.
 */
export function testDatabaseBackends(): TestDatabaseBackend[] {
  const serverUrl = process.env.DATABASE_URL;
  const backends: TestDatabaseBackend[] = [{ kind: 'pglite', create: () => createDatabase({ dataDir: MEMORY_DATA_DIR }) }];
  if (serverUrl) backends.unshift({ kind: 'postgres', create: () => createPostgresTestDatabase(serverUrl) });
  return backends;
}
