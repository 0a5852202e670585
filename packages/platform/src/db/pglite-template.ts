import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { lstat, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Where a freshly initialised in-memory PGlite cluster is kept as a tar file, so the next
 * in-memory database loads it (about 0.3 s) instead of running initdb in WASM again (about 2 s).
 * Every test file starts at least one in-memory database, so this is most of a test file's set-up
 * on the embedded pair (docs/decisions/0154-in-memory-databases-from-a-template.md).
 *
 * The file is named for the PGlite version and the settings it was made with, so another version
 * never loads it; it lives in a folder of the system's temporary space that only this user may
 * enter, checked before use (a tar someone else could write would be a database they chose).
 * Resolves undefined, and the database is made without a template, when the folder is not safe.
 */
export async function pgliteTemplatePath(conf: readonly string[]): Promise<string | undefined> {
  // Not os.userInfo(): it throws for a uid with no passwd entry, as containers often run.
  const uid = process.getuid?.();
  const folder = path.join(tmpdir(), `connectivity-pglite-${uid ?? 'user'}`);
  try {
    await mkdir(folder, { mode: 0o700, recursive: true });
    const stats = await lstat(folder);
    if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o077) !== 0) return undefined;
  } catch {
    return undefined;
  }
  const key = createHash('sha256').update(pgliteVersion()).update('\n').update(conf.join('\n')).digest('hex').slice(0, 16);
  return path.join(folder, `template-${key}.tar`);
}

let version: string | undefined;
/** The installed PGlite's version, from its package.json (found next to its entry point). */
function pgliteVersion(): string {
  if (version) return version;
  const require = createRequire(import.meta.url);
  for (let dir = path.dirname(require.resolve('@electric-sql/pglite')); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === '@electric-sql/pglite' && manifest.version) return (version = manifest.version);
    } catch {
      // Not this folder: go up.
    }
  }
  throw new Error('the installed @electric-sql/pglite has no package.json with its version');
}
