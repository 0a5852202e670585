import { emptyToUndefined } from '../config.ts';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../config.ts';
import { MIN_CURSOR_SECRET_LENGTH } from './cursor-codec.ts';

/**
 * `CURSOR_SECRET`: the key list cursors are signed with. Every instance of a service must share
 * it (a cursor from one instance is read by another), so it is required with a database server;
 * in embedded mode (one process) a random secret is made at boot, and cursors of an earlier run
 * stop working, which a client handles like any expired cursor.
 */
export const cursorSecretSchema = z.preprocess(emptyToUndefined, z.string().min(MIN_CURSOR_SECRET_LENGTH).optional());

export function resolveCursorSecret(config: { CURSOR_SECRET?: string | undefined; DATABASE_URL?: string | undefined }): string {
  if (config.CURSOR_SECRET) return config.CURSOR_SECRET;
  if (config.DATABASE_URL) {
    throw new ConfigError('CURSOR_SECRET is required when a database server is configured: every instance must sign cursors alike.');
  }
  return randomBytes(32).toString('base64url');
}
