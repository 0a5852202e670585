import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.ts';
import { capture, startCliWorld, type CliWorld } from './support.ts';

let world: CliWorld;
let dataDir: string;
let server: Server;
let gatewayUrl: string;

beforeAll(async () => {
  world = await startCliWorld();
  dataDir = world.dataDir;
  server = world.gateway.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  gatewayUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  server?.close();
  await world?.close();
});

const version = (key: string) => fetch(`${gatewayUrl}/v1/version`, { headers: { authorization: `Bearer ${key}` } });

describe('pnpm cli', () => {
  it('account create --json prints two keys that work at once', async () => {
    const out = capture();
    expect(await run(['account', 'create', '--name', 'Acme', '--json'], { env: { DATA_DIR: dataDir }, out })).toBe(0);
    const account = JSON.parse(out.lines.join('\n')) as { id: string; keys: { test: { secret: string }; live: { secret: string } } };
    expect(account.id).toMatch(/^acct_/);
    expect((await version(account.keys.test.secret)).status).toBe(200);
    expect((await version(account.keys.live.secret)).status).toBe(200);
  });

  it('runs as its own process (node packages/cli/src/main.ts) against the running gateway', async () => {
    const main = path.resolve(import.meta.dirname, '../src/main.ts');
    const { stdout } = await promisify(execFile)(process.execPath, [main, 'account', 'create'], {
      env: { ...process.env, DATA_DIR: dataDir, ADMIN_URL: '', ADMIN_TOKEN: '' },
    });
    const testKey = /test key: (sk_test_\S+)/.exec(stdout)?.[1];
    expect(testKey).toBeDefined();
    expect((await version(testKey ?? '')).status).toBe(200);
  });

  it('rotates, restricts and revokes keys, and sets verification, balance and rate limit', async () => {
    const created = capture();
    await run(['account', 'create', '--json'], { env: { DATA_DIR: dataDir }, out: created });
    const account = JSON.parse(created.lines.join('\n')) as { id: string; keys: { test: { id: string; secret: string } } };

    const issued = capture();
    expect(await run(['key', 'issue', account.id, '--env', 'test', '--json'], { env: { DATA_DIR: dataDir }, out: issued })).toBe(0);
    const key = JSON.parse(issued.lines.join('\n')) as { id: string; secret: string; replaced: { id: string } };
    expect(key.replaced.id).toBe(account.keys.test.id);
    expect((await version(account.keys.test.secret)).status).toBe(401);
    expect((await version(key.secret)).status).toBe(200);

    const restricted = capture();
    expect(await run(['key', 'restrict', key.id, '--scopes', 'esim:read'], { env: { DATA_DIR: dataDir }, out: restricted })).toBe(0);
    expect(restricted.lines.join('\n')).toContain('esim:read');
    const keys = await fetch(`${gatewayUrl}/v1/api_keys`, { headers: { authorization: `Bearer ${key.secret}` } });
    expect(keys.status).toBe(403);

    expect(await run(['account', 'rate-limit', account.id, '250'], { env: { DATA_DIR: dataDir }, out: capture() })).toBe(0);
    expect((await version(key.secret)).headers.get('ratelimit-limit')).toBe('250');

    expect(await run(['key', 'revoke', key.id], { env: { DATA_DIR: dataDir }, out: capture() })).toBe(0);
    const revoked = await version(key.secret);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe('key_revoked');
  });

  it('explains what is wrong instead of failing with a stack trace', async () => {
    const err = capture();
    expect(await run(['key', 'revoke', 'key_unknown'], { env: { DATA_DIR: dataDir }, err })).toBe(1);
    expect(err.lines.join('\n')).toMatch(/resource_not_found/);
    const missing = capture();
    expect(await run(['account', 'create'], { env: { DATA_DIR: path.join(dataDir, 'nowhere') }, err: missing })).toBe(1);
    expect(missing.lines.join('\n')).toMatch(/No running gateway found/);
    const bad = capture();
    expect(await run(['account', 'balance', 'acct_x', '-5'], { env: { DATA_DIR: dataDir }, err: bad })).toBe(2);
    expect(await run(['frobnicate'], { env: { DATA_DIR: dataDir }, err: capture() })).toBe(2);
  });

  it('prints its usage on --help, -h and help, with exit code 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], [], ['key', '--help']]) {
      const out = capture();
      expect(await run(argv, { env: { DATA_DIR: dataDir }, out })).toBe(0);
      expect(out.lines.join('\n')).toMatch(/pnpm cli account create/);
      expect(out.lines.join('\n')).toMatch(/pnpm cli listen --forward-to <url> \[--events esim\.\*,api_key\.\*\]/);
    }
  });

  // The stream itself is tested end to end against the whole stack (packages/launcher/test/cli-listen.test.ts).
  it('listen says what is missing or wrong before connecting, without needing the admin API', async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [['listen'], {}, /--forward-to is required/],
      [['listen', '--forward-to', 'not a url'], {}, /--forward-to is not a URL/],
      [['listen', '--forward-to', 'http://localhost:3000/hooks'], { DATA_DIR: path.join(dataDir, 'nowhere') }, /No API key/],
      [['listen', '--forward-to', 'http://localhost:3000/hooks', '--key', 'sk_live_abc'], {}, /use a test key/],
      [['listen', '--forward-to', 'http://localhost:3000/hooks', '--url', 'nope'], { CONNECTIVITY_API_KEY: 'sk_test_abc' }, /--url is not a URL/],
    ];
    for (const [argv, env, message] of cases) {
      const err = capture();
      expect(await run(argv, { env: { DATA_DIR: dataDir, ADMIN_URL: '', ADMIN_TOKEN: '', ...env }, out: capture(), err })).toBe(1);
      expect(err.text()).toMatch(message);
    }
  });

  it('listen stops with the error when the stream refuses the key', async () => {
    const out = capture();
    const err = capture();
    const code = await run(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--key', 'sk_test_NotARealKeyNotARealKey0000', '--url', gatewayUrl], {
      env: { DATA_DIR: dataDir },
      out,
      err,
    });
    expect(code).toBe(1);
    expect(err.text()).toMatch(/key_invalid/);
    expect(out.text()).toMatch(/Webhook signing secret: whsec_[A-Za-z0-9+/=]{32}/);
  });
});
