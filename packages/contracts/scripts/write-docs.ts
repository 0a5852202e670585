// Writes the prose catalogues under docs/ from the contract, so they never drift from the code.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CATALOGUE_DOCS } from '../src/docs/catalogue-markdown.ts';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs');
for (const [name, render] of Object.entries(CATALOGUE_DOCS)) {
  await writeFile(join(docs, name), render());
  process.stdout.write(`wrote docs/${name}\n`);
}
