import type { ApiKey, Environment, Scope } from '@connectivity/contracts';
import { unixSeconds } from './unix-time.ts';

/** A key record as the gateway keeps it (never the secret, which is not stored). */
export interface KeyRow {
  id: string;
  account_id: string;
  environment: Environment;
  prefix: string;
  last4: string;
  status: 'active' | 'revoked';
  scopes: Scope[];
  created_at: Date;
  first_used_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** The key plus what the edge needs of its account, read in one query when the key cache misses. */
export interface AuthenticatedKeyRow extends KeyRow {
  secret_hash: Buffer;
  pinned_version: string | null;
  rate_limit_per_minute: number | null;
}

/** The public API key record (record 0251). */
export function toApiKey(row: KeyRow): ApiKey {
  return {
    object: 'api_key',
    id: row.id,
    environment: row.environment,
    prefix: row.prefix,
    last4: row.last4,
    status: row.status,
    scopes: row.scopes,
    created_at: unixSeconds(row.created_at),
    last_used_at: row.last_used_at ? unixSeconds(row.last_used_at) : null,
    revoked_at: row.revoked_at ? unixSeconds(row.revoked_at) : null,
  };
}
