import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './supervisor.ts';

/**
 * The Node arguments of the root `pnpm start` script (everything after `node`), so the tests
 * and the bench start the embedded form exactly as a user does, heap settings included.
 */
export function startArguments(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const [command, ...args] = (manifest.scripts?.start ?? '').trim().split(/\s+/);
  if (command !== 'node' || args.length === 0) throw new Error('the root package.json `start` script is expected to be `node <arguments>`');
  return args;
}
