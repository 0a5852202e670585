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
  const file = path.join(config.DATA_DIR, 'dev-keys.json');
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { testKey?: unknown };
    if (typeof parsed.testKey === 'string') return parsed.testKey;
  } catch {
    // Fall through to the message below.
  }
  throw new CliError(`No API key: pass --key sk_test_..., set CONNECTIVITY_API_KEY, or start the sandbox (pnpm start) so ${file} exists.`);
}

/** The SDK on the public API, as an integrator uses it; no retries, so the operator sees each answer as it came. */
export function createApiClient(baseUrl: string, apiKey: string): Connectivity {
  return new Connectivity({ apiKey, baseUrl, maxRetries: 0, timeoutMs: 30_000 });
}
