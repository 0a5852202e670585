import { accessSync, constants } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../../src/local-stack.ts';
import { installConsumer, run, typecheck, writeTsconfig } from './support/consumer-project.ts';

// What the consumer installs besides the tarball, pinned like everything else of the project.
const CONSUMER_TOOLS = ['typescript@5.9.3', '@types/node@24.19.2'];

const STRICT = { strict: true, skipLibCheck: false, target: 'es2022', lib: ['es2022'], types: ['node'], rootDir: '.' };
const TSCONFIGS = {
  nodenext: { compilerOptions: { ...STRICT, module: 'nodenext', moduleResolution: 'nodenext', outDir: 'out' }, files: ['consumer.ts'] },
  bundler: { compilerOptions: { ...STRICT, module: 'esnext', moduleResolution: 'bundler', noEmit: true }, files: ['consumer.ts'] },
};

/** The machine's own Node 20: a `node` on PATH (or in /usr/bin) that is not a copy under node_modules. */
async function machineNode20(): Promise<string> {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/bin', '/usr/bin'];
  for (const dir of dirs) {
    if (dir === '' || dir.includes('node_modules')) continue;
    const candidate = path.join(dir, 'node');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const { stdout } = await run(candidate, ['--version']);
    if (stdout.trim().startsWith('v20.')) return candidate;
  }
  throw new Error('No Node 20 outside node_modules (which -a node): this test runs the SDK on the machine’s own Node 20.');
}

interface ConsumerReport {
  node: string;
  bundle: string;
  order: string;
  esims: string[];
  idempotencyKey: string | null;
  paged: string[];
  pageRequests: number;
  invalid: Record<string, unknown> | null;
  notFound: Record<string, unknown> | null;
  released: string[];
  releasedToMiddleware: string[];
  rejected: string[];
}

/**
 * The SDK as an integrator gets it: `pnpm pack`, then plain `npm install` of the tarball in an
 * empty project outside the workspace, a consumer type-checked under `strict` with both module
 * resolutions, and run on the machine's Node 20 and the project's Node 24 against a started API.
 */
describe('the packed SDK, installed with npm outside the workspace', () => {
  let stack: LocalStack;
  let testKey = '';
  let scratch = '';
  let project = '';
  let node20 = '';

  beforeAll(async () => {
    node20 = await machineNode20();
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    testKey = (await ensureDevAccount({ db: stack.db })).testKey;
    scratch = await mkdtemp(path.join(tmpdir(), 'sdk-package-'));
    project = path.join(scratch, 'consumer');
    await installConsumer(project, inject('sdkTarball'), CONSUMER_TOOLS, ['consumer.ts', 'require-check.cjs']);
    for (const [name, config] of Object.entries(TSCONFIGS)) await writeTsconfig(project, name, config);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  test('the tarball is the built, public package: no workspace dependency, no sources, no internal routes, no Node built-in', async () => {
    const installed = path.join(project, 'node_modules/@connectivity/sdk');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.name).toBe('@connectivity/sdk');
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(['@ts-rest/core', 'standardwebhooks', 'zod']);
    expect(JSON.stringify(manifest.dependencies)).not.toContain('workspace:');
    expect(manifest.engines).toEqual({ node: '>=20.3' });
    expect(JSON.stringify(manifest.exports)).not.toContain('src/');
    expect(Object.keys(manifest.exports as object)).toEqual(['.', './express', './package.json']);
    expect((await readdir(installed)).sort()).toEqual(['CHANGELOG.md', 'README.md', 'dist', 'package.json']);
    expect((await readdir(path.join(installed, 'dist'))).sort()).toEqual(
      ['express.cjs', 'express.d.cts', 'express.d.ts', 'express.js', 'index.cjs', 'index.d.cts', 'index.d.ts', 'index.js'].sort(),
    );

    const changelog = await readFile(path.join(installed, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(`## ${String(manifest.version)}`);
    const readme = await readFile(path.join(installed, 'README.md'), 'utf8');
    expect(readme).toContain('npm install @connectivity/sdk');

    // The main entry runs wherever fetch does: no Node module, and no Node global (Buffer, process) either.
    for (const file of ['dist/index.js', 'dist/index.cjs']) {
      const code = await readFile(path.join(installed, file), 'utf8');
      expect(code, file).not.toMatch(/\/internal\/|\/admin\//);
      expect(code, file).not.toMatch(/from\s+["']node:|require\(["']node:/);
      expect(code, file).not.toMatch(/\bBuffer\.|\bprocess\.(env|version|nextTick)/);
      expect(code, file).not.toContain('@connectivity/contracts');
    }
    const types = await readFile(path.join(installed, 'dist/index.d.ts'), 'utf8');
    expect(types).not.toContain('@connectivity/contracts');
    expect(types).not.toMatch(/internalContract|adminContract/);
    // Declarations a project without @types/node can read: standardwebhooks' name Node's Buffer, so they are not imported.
    expect([...types.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]).sort()).toEqual(['@ts-rest/core', 'zod']);
    expect(types).not.toMatch(/["'](node:[\w/]+|standardwebhooks)["']/);
    // The express subpath is the Node part: it takes the main entry by name (one copy of it at run time) and node:http's types.
    for (const file of ['dist/express.js', 'dist/express.cjs', 'dist/express.d.ts']) {
      const code = await readFile(path.join(installed, file), 'utf8');
      expect(code, file).toMatch(/from "@connectivity\/sdk"|require\("@connectivity\/sdk"\)/);
      expect(code, file).not.toContain('@connectivity/contracts');
    }
  });

  test.each(Object.keys(TSCONFIGS))(
    'a strict consumer type-checks with moduleResolution %s',
    async (name) => {
      expect(await typecheck(project, name)).toBe('');
    },
    120_000,
  );

  test.each(['machine Node 20', 'project Node 24'])(
    'on the %s: lists, buys with an automatic Idempotency-Key, pages, throws typed errors and verifies webhooks (by hand and with the express subpath)',
    async (which) => {
      const node = which === 'machine Node 20' ? node20 : process.execPath;
      const major = which === 'machine Node 20' ? 'v20.' : 'v24.';
      // The nodenext check emits the consumer as JavaScript; it runs as it would in the integrator's project.
      await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.nodenext.json'], { cwd: project });
      const env = {
        PATH: process.env.PATH,
        CONNECTIVITY_API_URL: stack.composition.gatewayUrl,
        CONNECTIVITY_API_KEY: testKey,
        RUN_ID: `run${major.replace(/\W/g, '')}`,
      };
      const { stdout } = await run(node, ['out/consumer.js'], { cwd: project, env, timeout: 90_000 });
      const report = JSON.parse(stdout) as ConsumerReport;

      expect(report.node.startsWith(major)).toBe(true);
      expect(report.order).toMatch(/^ord_[0-9A-Za-z]{20,}$/);
      expect(report.esims).toHaveLength(3);
      expect(report.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect([...report.paged].sort()).toEqual([...report.esims].sort());
      expect(report.pageRequests).toBeGreaterThanOrEqual(3);
      expect(report.invalid).toMatchObject({ class: 'InvalidRequestError', status: 400, code: 'invalid_parameter', param: 'bundle' });
      expect(report.invalid?.requestId).toMatch(/^req_/);
      expect(report.notFound).toMatchObject({ class: 'NotFoundError', status: 404, code: 'resource_not_found' });
      expect(report.released).toEqual([...report.esims].sort());
      expect(report.releasedToMiddleware).toEqual([...report.esims].sort());
      expect(report.rejected).toEqual([]);

      const required = await run(node, ['require-check.cjs'], { cwd: project });
      expect(JSON.parse(required.stdout)).toEqual({
        Connectivity: 'function',
        verifyWebhook: 'function',
        NotFoundError: 'function',
        webhookMiddleware: 'function',
        webhookMiddlewareInMain: 'undefined',
      });
    },
    120_000,
  );
});
