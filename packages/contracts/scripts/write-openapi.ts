// Writes dist/openapi.json (the public API) and dist/admin-openapi.json (the operator admin API) from the contracts.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAdminOpenApiDocument } from '../src/admin/openapi.ts';
import { buildOpenApiDocument } from '../src/openapi.ts';

const dist = join(import.meta.dirname, '..', 'dist');
await mkdir(dist, { recursive: true });
for (const [name, document] of [
  ['openapi.json', buildOpenApiDocument()],
  ['admin-openapi.json', buildAdminOpenApiDocument()],
] as const) {
  await writeFile(join(dist, name), `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote dist/${name} (${Object.keys(document.paths).length} paths)\n`);
}
