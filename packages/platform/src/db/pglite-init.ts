// Run as a child process by `createDatabase` on the embedded form's first start: it creates a
// new PGlite data directory (initdb) and exits. initdb's allocations are not given back to the
// system, so the sandbox's own process would keep them for its whole life; here they go with the
// child (docs/decisions/0009-embedded-form-memory.md).
//
//   node pglite-init.ts <directory> <postgresql.conf lines as JSON>
import { PGlite } from '@electric-sql/pglite';

const [directory, conf] = process.argv.slice(2);
if (!directory || !conf) {
  process.stderr.write('usage: pglite-init.ts <directory> <postgresqlconf JSON>\n');
  process.exit(2);
}
const pglite = await PGlite.create(directory, { postgresqlconf: JSON.parse(conf) as string[] });
await pglite.close();
