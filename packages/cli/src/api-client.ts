import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Connectivity } from '@connectivity/sdk';
import { CliError } from './admin-client.ts';
import type { CliConfig } from './config.ts';

/**
 * The key of the commands an integrator runs: `--key`, else CONNECTIVITY_API_KEY, else the dev account's test
 * key that a running `pnpm start` keeps in DATA_DIR/dev-keys.json (so the sandbox needs no set-up).
 */
export async function resolveApiKey(config: CliConfig, flag: string | undefined): Promise<string> {
  const given = flag ?? config.CONNECTIVITY_API_KEY;
  if (given !== undefined) {
    if (!/^sk_(test|live)_/.test(given)) throw new CliError('The key must be an API key (sk_test_... or sk_live_...).');
    return given;
  }
  const dev = await readDevTestKey(config);
  if (dev !== undefined) return dev;
  throw new CliError(`No API key: pass --key sk_test_..., set CONNECTIVITY_API_KEY, or start the sandbox (pnpm start) so ${devKeysFile(config)} exists.`);
}

/** Whether the commands use the dev account's key of a local `pnpm start` (no key was given). */
export const usesDevKey = (config: CliConfig, flag: string | undefined): boolean => (flag ?? config.CONNECTIVITY_API_KEY) === undefined;

const devKeysFile = (config: CliConfig) => path.join(config.DATA_DIR, 'dev-keys.json');

/** The dev account's test key as the running (or last) `pnpm start` wrote it; read afresh each time. */
export async function readDevTestKey(config: CliConfig): Promise<string | undefined> {
  try {
    const parsed = JSON.parse(await readFile(devKeysFile(config), 'utf8')) as { testKey?: unknown };
    return typeof parsed.testKey === 'string' ? parsed.testKey : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK on the public API, as an integrator uses it; no retries, so the operator sees each answer as it came. */
export function createApiClient(baseUrl: string, apiKey: string): Connectivity {
  return new Connectivity({ apiKey, baseUrl, maxRetries: 0, timeoutMs: 30_000 });
}
