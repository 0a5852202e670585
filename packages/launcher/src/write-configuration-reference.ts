import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configurationReference } from './configuration-reference.ts';

// `pnpm docs:config`: writes docs/configuration.md from the config schemas.
const { markdown, undescribed } = configurationReference();
writeFileSync(path.resolve(import.meta.dirname, '../../../docs/configuration.md'), markdown);
if (undescribed.length > 0) {
  process.stderr.write(`These variables have no comment in their schema:\n  ${undescribed.join('\n  ')}\n`);
  process.exitCode = 1;
}
