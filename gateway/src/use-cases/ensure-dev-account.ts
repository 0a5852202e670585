import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MEMORY_DATA_DIR, type ServiceRuntime } from '@connectivity/platform';
import type { Environment } from '@connectivity/contracts';
import { findDevAccount } from '../db/accounts-repository.ts';
import { findActiveKey, findKeyByHash } from '../db/keys-repository.ts';
import { hashSecret, secretEnvironment } from '../domain/api-key-secret.ts';
import { createAccount } from './create-account.ts';
import { rotateKey } from './rotate-key.ts';

export interface DevAccountOptions {
  /** `DEV_TEST_KEY` / `DEV_LIVE_KEY`: the keys to use; generated when absent. */
  testKey?: string | undefined;
  liveKey?: string | undefined;
  /**
   * The embedded data directory. Generated keys are kept in `<dataDir>/dev-keys.json`
   * (owner-only) so a restart on the same data shows the same keys; only hashes are in the
   * database, so without this file a restart would have to issue new ones.
   */
  dataDir?: string | undefined;
}

export interface DevAccount {
  accountId: string;
  testKey: string;
  liveKey: string;
  /** True when keys were issued by this call (print them); false when existing ones were kept. */
  issued: boolean;
}

const KEY_FILE = 'dev-keys.json';

async function readKeyFile(file: string | undefined): Promise<Partial<Record<Environment, string>>> {
  if (!file) return {};
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { testKey?: unknown; liveKey?: unknown };
    return {
      ...(typeof parsed.testKey === 'string' && { test: parsed.testKey }),
      ...(typeof parsed.liveKey === 'string' && { live: parsed.liveKey }),
    };
  } catch {
    return {};
  }
}

/**
 * The one developer account of the embedded sandbox (`pnpm start`). On every start it makes
 * sure the account exists and that each environment's active key is the wanted one: the key
 * given in the environment when set, else the key remembered from the previous run, else a new
 * one. A key that differs from the active one rotates it (the old key is revoked, with events),
 * so changing DEV_TEST_KEY between runs simply replaces the key.
 */
export async function ensureDevAccount(runtime: Pick<ServiceRuntime, 'db'>, options: DevAccountOptions = {}): Promise<DevAccount> {
  const knex = runtime.db.knex;
  for (const [env, key] of [
    ['test', options.testKey],
    ['live', options.liveKey],
  ] as const) {
    if (key !== undefined && secretEnvironment(key) !== env)
      throw new Error(`DEV_${env.toUpperCase()}_KEY must look like sk_${env}_ followed by 24 to 128 letters and digits`);
  }
  const keyFile = options.dataDir && options.dataDir !== MEMORY_DATA_DIR ? path.resolve(options.dataDir, KEY_FILE) : undefined;
  const remembered = await readKeyFile(keyFile);

  let account = await findDevAccount(knex);
  let issued = false;
  const result: Record<Environment, string> = { test: '', live: '' };
  if (!account) {
    const created = await createAccount(knex, { name: 'Developer account', isDev: true, testSecret: options.testKey, liveSecret: options.liveKey });
    account = created.account;
    result.test = created.test.secret;
    result.live = created.live.secret;
    issued = true;
  } else {
    for (const env of ['test', 'live'] as const) {
      const wanted = (env === 'test' ? options.testKey : options.liveKey) ?? remembered[env];
      const active = await findActiveKey(knex, account.id, env);
      const wantedRow = wanted ? await findKeyByHash(knex, hashSecret(wanted)) : undefined;
      if (wanted && active && wantedRow?.id === active.id) {
        result[env] = wanted;
        continue;
      }
      if (wantedRow && wantedRow.id !== active?.id) {
        // A revoked key cannot come back: issue a fresh one instead of reusing its secret.
        const rotated = await rotateKey(knex, account.id, env);
        result[env] = rotated.secret;
      } else {
        const rotated = await rotateKey(knex, account.id, env, { secret: wanted });
        result[env] = rotated.secret;
      }
      issued = true;
    }
  }

  if (keyFile) {
    await mkdir(path.dirname(keyFile), { recursive: true });
    await writeFile(keyFile, `${JSON.stringify({ accountId: account.id, testKey: result.test, liveKey: result.live }, null, 2)}\n`, { mode: 0o600 });
    await chmod(keyFile, 0o600);
  }
  return { accountId: account.id, testKey: result.test, liveKey: result.live, issued };
}
