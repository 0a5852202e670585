import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { createDatabase, MEMORY_DATA_DIR } from '../src/db/create-database.ts';
import { pgliteTemplatePath } from '../src/db/pglite-template.ts';

// The settings create-database.ts gives PGlite (the template's name depends on them).
const CONF = ["shared_buffers = '16MB'", "work_mem = '2MB'", "maintenance_work_mem = '16MB'", "temp_buffers = '2MB'"];

async function tablesOf(): Promise<string[]> {
  const db = await createDatabase({ dataDir: MEMORY_DATA_DIR });
  try {
    const found = await db.knex.raw<{ rows: { table_name: string }[] }>("select table_name from information_schema.tables where table_schema = 'public'");
    await db.knex.raw('create table left_behind (id int)');
    return found.rows.map((row) => row.table_name);
  } finally {
    await db.close();
  }
}

describe('in-memory databases from the template of a fresh cluster', () => {
  test('the template is a fresh cluster: what one database wrote is never in the next', async () => {
    const template = await pgliteTemplatePath(CONF);
    expect(template).toBeDefined();
    expect(await tablesOf()).toEqual([]);
    const made = await stat(template!);
    expect(made.mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(template!))).mode & 0o777).toBe(0o700);
    expect(await tablesOf()).toEqual([]);
  });

  test('a damaged template is made again, and the database still starts', async () => {
    const template = (await pgliteTemplatePath(CONF))!;
    await writeFile(template, 'not a tar');
    expect(await tablesOf()).toEqual([]);
    expect((await stat(template)).size).toBeGreaterThan(1_000_000);
  });
});
