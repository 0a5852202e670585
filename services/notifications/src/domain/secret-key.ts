import { ConfigError } from '@connectivity/platform';
import { SECRET_KEY_BYTES } from './secret-box.ts';

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
