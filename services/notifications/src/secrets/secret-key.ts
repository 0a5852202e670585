import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@connectivity/platform';
import { SECRET_KEY_BYTES } from './secret-box.ts';

/** Where embedded mode keeps its generated key, beside the PGlite data it protects. */
export const KEY_FILE = 'webhook-secret.key';
const MEMORY_DATA_DIR = 'memory://';

/** `WEBHOOK_SECRET_KEY`: 32 bytes written as 64 hex characters or as base64 / base64url. */
export function parseSecretKey(value: string): Buffer | undefined {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64url');
  return key.length === SECRET_KEY_BYTES ? key : undefined;
}

/**
 * `WEBHOOK_SECRET_KEY_PREVIOUS`: keys taken out of service, comma-separated, each written like
 * `WEBHOOK_SECRET_KEY`. They only open secrets sealed before a rotation, which are re-sealed
 * with the current key at start. A bad entry is named by its position, never by its value.
 */
export function parsePreviousKeys(value: string | undefined): Buffer[] {
  if (value === undefined || value.trim() === '') return [];
  return value.split(',').map((entry, index) => {
    const key = parseSecretKey(entry);
    if (!key) throw new ConfigError(`WEBHOOK_SECRET_KEY_PREVIOUS: key ${index + 1} must be 32 bytes, as 64 hex characters or base64.`);
    return key;
  });
}

/**
 * The key webhook signing secrets are sealed with. With a database server it must be given
 * (every instance, and every restart, must open the same rows). Embedded, an unset key is made
 * once and kept in `DATA_DIR/webhook-secret.key` (mode 0600), so the on-disk endpoints stay
 * readable across restarts; an in-memory database gets a key that lives as long as it does.
 */
export function resolveSecretKey(config: { WEBHOOK_SECRET_KEY?: string | undefined; DATABASE_URL?: string | undefined; DATA_DIR: string }): Buffer {
  if (config.WEBHOOK_SECRET_KEY) {
    const key = parseSecretKey(config.WEBHOOK_SECRET_KEY);
    if (!key) throw new ConfigError('WEBHOOK_SECRET_KEY must be 32 bytes, as 64 hex characters or base64.');
    return key;
  }
  if (config.DATABASE_URL) {
    throw new ConfigError(
      'WEBHOOK_SECRET_KEY is required when a database server is configured: webhook signing secrets are encrypted with it, and every instance must read them alike.',
    );
  }
  if (config.DATA_DIR === MEMORY_DATA_DIR) return randomBytes(SECRET_KEY_BYTES);
  return readOrCreateKeyFile(path.resolve(config.DATA_DIR, KEY_FILE));
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    const key = parseSecretKey(readFileSync(file, 'utf8'));
    if (!key) throw new ConfigError(`${file} does not hold a 32-byte key; restore it, or set WEBHOOK_SECRET_KEY.`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(SECRET_KEY_BYTES);
  try {
    // `wx`: a second process starting at the same moment keeps the first one's key, not its own.
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readOrCreateKeyFile(file);
    throw err;
  }
}
