import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CATALOGUE_DOCS } from '../src/docs/catalogue-markdown.ts';
import { ERROR_CODES, EVENT_TYPES } from '../src/index.ts';

const docs = join(import.meta.dirname, '..', '..', '..', 'docs');

describe('the prose catalogues in docs/', () => {
  test.each(Object.entries(CATALOGUE_DOCS))(
    '%s is the one generated from the contract (run `pnpm --filter @connectivity/contracts run docs`)',
    async (name, render) => {
      expect(await readFile(join(docs, name), 'utf8')).toBe(render());
    },
  );

  test('name every event type and every error code', () => {
    const text = Object.values(CATALOGUE_DOCS)
      .map((render) => render())
      .join('\n');
    for (const name of [...EVENT_TYPES, ...ERROR_CODES]) expect(text).toContain(`\`${name}\``);
  });
});
