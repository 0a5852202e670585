import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@connectivity/platform';
import { afterEach, describe, expect, test } from 'vitest';
import { adoptEarlyDatabase, startEarlyDatabase } from '../src/early-database.ts';

// Each test opens PGlite (a WebAssembly Postgres): seconds alone, far more on a loaded machine.
const TIMEOUT = 180_000;
const logger = createLogger({ name: 'early-database-test', level: 'silent' });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'early-database-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('the embedded database started before the app loads (record 0271)', () => {
  test('starts nothing where the configuration may choose another database or refuse this one', () => {
    expect(startEarlyDatabase({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' })).toBeUndefined();
    expect(startEarlyDatabase({ DATA_DIR: '' })).toBeUndefined();
  });

  test(
    'the configuration that chose it is given it, open, under DATA_DIR',
    async () => {
      const dataDir = await tempDir();
      const early = startEarlyDatabase({ DATA_DIR: dataDir });
      expect(early?.dataDir).toBe(dataDir);
      const db = await adoptEarlyDatabase(early, { DATABASE_URL: undefined, DATA_DIR: dataDir }, logger);
      cleanups.push(() => db.close());
      expect(db).toBe(await early?.database);
      expect(db.kind).toBe('pglite');
      await expect(db.ping()).resolves.toBeUndefined();
    },
    TIMEOUT,
  );

  test(
    'a configuration that asks for another database is given that one, and the early one is closed',
    async () => {
      const early = startEarlyDatabase({ DATA_DIR: 'memory://' });
      const dataDir = await tempDir();
      const db = await adoptEarlyDatabase(early, { DATABASE_URL: undefined, DATA_DIR: dataDir }, logger);
      cleanups.push(() => db.close());
      const earlyDb = await early!.database;
      expect(db).not.toBe(earlyDb);
      await expect(db.ping()).resolves.toBeUndefined();
      await expect(earlyDb.ping()).rejects.toThrow();
    },
    TIMEOUT,
  );

  test(
    'a data directory that cannot be opened fails the start with its own error once adopted',
    async () => {
      const dataDir = await tempDir();
      await mkdir(path.join(dataDir, 'pglite'));
      await writeFile(path.join(dataDir, 'pglite', 'notes.txt'), 'mine');
      const early = startEarlyDatabase({ DATA_DIR: dataDir });
      // Nothing unhandled while the app loads: the error waits for the adoption.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(adoptEarlyDatabase(early, { DATABASE_URL: undefined, DATA_DIR: dataDir }, logger)).rejects.toThrow(/not a PostgreSQL data directory/);
    },
    TIMEOUT,
  );
});
