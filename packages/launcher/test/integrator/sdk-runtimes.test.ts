import { accessSync, constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../../src/local-stack.ts';
import { installConsumer, run, typecheck, writeTsconfig } from './support/consumer-project.ts';
import { expectPortableReport } from './support/portable-report.ts';

const require = createRequire(import.meta.url);

/** A runtime's binary, as its npm package (a devDependency of this package) installed it. */
function runtimeBinary(pkg: 'bun' | 'deno'): string {
  const binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), pkg === 'bun' ? 'bin/bun.exe' : 'deno');
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    throw new Error(`${binary} is missing: the ${pkg} package fetches it in its postinstall, which pnpm runs only for onlyBuiltDependencies.`);
  }
  return binary;
}

// A project with no Node types: only the language, the Web APIs (DOM's lib declares them as Deno's and
// Workers' do) and the packed SDK. skipLibCheck off: the SDK's declarations are checked too.
const PORTABLE = { strict: true, skipLibCheck: false, target: 'es2022', lib: ['es2022', 'dom'], types: [], noEmit: true, allowImportingTsExtensions: true };
const PROGRAM = ['portable.ts', 'server-main.ts', 'browser-main.ts'];
const TSCONFIGS = {
  nodenext: { compilerOptions: { ...PORTABLE, module: 'nodenext', moduleResolution: 'nodenext' }, files: PROGRAM },
  bundler: { compilerOptions: { ...PORTABLE, module: 'esnext', moduleResolution: 'bundler' }, files: PROGRAM },
};

/**
 * The packed SDK outside Node: a consumer without @types/node type-checks under `strict` with both module
 * resolutions, and the same program runs on Bun and on Deno (each from its npm package) against a started
 * API: it buys eSIMs and verifies their webhooks on the runtime's own HTTP server (record 0187).
 */
describe('the packed SDK without Node: its types, and Bun and Deno', () => {
  let stack: LocalStack;
  let testKey = '';
  let scratch = '';
  let project = '';

  beforeAll(async () => {
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    testKey = (await ensureDevAccount({ db: stack.db })).testKey;
    scratch = await mkdtemp(path.join(tmpdir(), 'sdk-runtimes-'));
    project = path.join(scratch, 'consumer');
    // No @types/node, not even as a dependency of a tool: TypeScript alone.
    await installConsumer(project, inject('sdkTarball'), ['typescript@5.9.3'], PROGRAM);
    for (const [name, config] of Object.entries(TSCONFIGS)) await writeTsconfig(project, name, config);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  test.each(Object.keys(TSCONFIGS))(
    'a strict consumer without @types/node type-checks with moduleResolution %s',
    async (name) => {
      await expect(access(path.join(project, 'node_modules/@types/node'))).rejects.toThrow(/ENOENT/);
      expect(await typecheck(project, name)).toBe('');
    },
    120_000,
  );

  test.each(['bun', 'deno'] as const)(
    'on %s (from npm): lists, buys, pages, throws typed errors, verifies webhooks on its own server and ignores an unknown event type',
    async (runtime) => {
      const env = {
        PATH: process.env.PATH,
        CONNECTIVITY_API_URL: stack.composition.gatewayUrl,
        CONNECTIVITY_API_KEY: testKey,
        RUN_ID: `run${runtime}`,
        NO_COLOR: '1',
        // Deno's caches in the scratch folder, and no look-up of a newer release (the network is the API only).
        DENO_DIR: path.join(scratch, 'deno'),
        DENO_NO_UPDATE_CHECK: '1',
        DO_NOT_TRACK: '1',
      };
      const args =
        runtime === 'bun'
          ? ['run', 'server-main.ts']
          : ['run', '--allow-net=127.0.0.1', '--allow-env=CONNECTIVITY_API_URL,CONNECTIVITY_API_KEY,RUN_ID', 'server-main.ts'];
      const { stdout } = await run(runtimeBinary(runtime), args, { cwd: project, env, timeout: 90_000 });
      const report = JSON.parse(stdout) as Record<string, unknown>;

      expect(String(report.runtime)).toMatch(runtime === 'bun' ? /^bun 1\./ : /^deno 2\./);
      // The runtime's own fetch Headers reached verifyWebhook.
      expect(report.headersClass).toBe('Headers');
      expectPortableReport(report);
    },
    120_000,
  );
});
