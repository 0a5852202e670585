import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationReference } from '../src/configuration-reference.ts';

const root = path.resolve(import.meta.dirname, '../../..');

describe('docs/configuration.md', () => {
  const reference = configurationReference();

  it('is what the config schemas make (run `pnpm docs:config` after changing one)', () => {
    expect(readFileSync(path.join(root, 'docs/configuration.md'), 'utf8')).toBe(reference.markdown);
  });

  it('says what every variable does: each has a comment in its schema', () => {
    expect(reference.undescribed).toEqual([]);
  });

  it('lists the variables of every process, with the default each schema gives', () => {
    for (const row of [
      '| `DATABASE_URL` | unset |',
      '| `RATE_LIMIT_PER_MINUTE` | `120` |',
      '| `SUPPLIER_TIMEOUT_MS` | `5000` |',
      '| `WEBHOOK_TIMEOUT_MS` | `15000` |',
      '| `FAKE_SUPPLIER_PORT` | `8099` |',
    ])
      expect(reference.markdown).toContain(row);
  });
});
