import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The SDK as `pnpm pack` makes it (the build runs in `prepack`): what npm would publish. */
    sdkTarball: string;
  }
}

const run = promisify(execFile);
const sdkDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../sdk');

/**
 * Vitest global set-up of the integrator tests: packs the SDK once for every file that installs it, since
 * the build is most of the time these tests take (record 0187).
 */
export default async function packSdk(project: TestProject): Promise<() => Promise<void>> {
  const packed = await mkdtemp(path.join(tmpdir(), 'sdk-packed-'));
  await run('pnpm', ['pack', '--pack-destination', packed], { cwd: sdkDir, maxBuffer: 16 * 1024 * 1024 });
  const [file] = await readdir(packed);
  if (file === undefined) throw new Error(`pnpm pack left nothing in ${packed}`);
  project.provide('sdkTarball', path.join(packed, file));
  return () => rm(packed, { recursive: true, force: true });
}
