// Writes dist/openapi.json from the contract, for the SDK generator and anyone who wants the file.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../src/openapi.ts';

const dist = join(import.meta.dirname, '..', 'dist');
await mkdir(dist, { recursive: true });
const file = join(dist, 'openapi.json');
const document = buildOpenApiDocument();
await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write(`wrote dist/openapi.json (${Object.keys(document.paths).length} paths)\n`);
