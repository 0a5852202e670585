import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const run = promisify(execFile);
const consumerSources = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../consumer');

/**
 * An integrator's project outside the workspace: an empty folder, `npm install` of the packed SDK and of
 * `tools` (exact versions), and the consumer files copied in from `consumer/` (kept there as `.txt`, so
 * the workspace neither compiles nor lints them: they are checked here, against the packed package).
 */
export async function installConsumer(project: string, tarball: string, tools: string[], files: string[]): Promise<void> {
  await mkdir(project, { recursive: true });
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--save-exact', tarball, ...tools], {
    cwd: project,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of files) await writeFile(path.join(project, file), await readFile(path.join(consumerSources, `${file}.txt`), 'utf8'));
}

/** Writes `tsconfig.<name>.json` in `project`. */
export async function writeTsconfig(project: string, name: string, config: object): Promise<void> {
  await writeFile(path.join(project, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
}

/** The project's own tsc on `tsconfig.<name>.json`: its diagnostics, or '' when there are none. */
export function typecheck(project: string, name: string): Promise<string> {
  // tsc prints its diagnostics on stdout and exits non-zero.
  return run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', `tsconfig.${name}.json`], { cwd: project }).then(
    () => '',
    (error: Error & { stdout?: string }) => error.stdout || error.message,
  );
}
