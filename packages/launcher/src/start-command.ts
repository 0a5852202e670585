import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './supervisor.ts';

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

/**
 * The root `pnpm start` script as a command: the variables it sets before `node` (the C library's
 * memory setting, record 0269) and Node's arguments (everything after `node`), so the tests and the
 * bench start the embedded form exactly as a user does, heap and allocator settings included.
 */
export function startCommand(): { env: Record<string, string>; args: string[] } {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const words = (manifest.scripts?.start ?? '').trim().split(/\s+/);
  const env: Record<string, string> = {};
  let match: RegExpExecArray | null;
  while (words.length > 0 && (match = ASSIGNMENT.exec(words[0]!)) !== null) {
    env[match[1]!] = match[2]!;
    words.shift();
  }
  const [command, ...args] = words;
  if (command !== 'node' || args.length === 0) throw new Error('the root package.json `start` script is expected to be `[NAME=value ...] node <arguments>`');
  return { env, args };
}
