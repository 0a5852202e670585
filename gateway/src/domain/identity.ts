import type { Environment, Scope } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { AuthenticatedKeyRow } from './api-key.ts';

/**
 * Who a request is, as the edge's steps need it: built once from the authenticated key when the
 * key cache reads it, and handed by reference to every request the key makes, so a request
 * allocates none of it (record 0260). The database row stays in `db/`.
 */
export interface Identity {
  readonly keyId: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly scopes: readonly Scope[];
  /** The account's own budget per minute; null: the default (RATE_LIMIT_PER_MINUTE). */
  readonly rateLimitPerMinute: number | null;
  /** The key's rate-limit bucket, shared by every gateway instance. */
  readonly rateLimitBucket: string;
  /** What the owning service, or the gateway's own router, is told of the caller; never changed. */
  readonly caller: Readonly<Caller>;
  /** The account's pinned version; set in place when this instance pins it on the first call. */
  pinnedVersion: string | null;
  /** When the key was first used; set in place once its first use is recorded. */
  firstUsedAt: Date | null;
}

/** The identity of an authenticated key. */
export function identityOf(key: AuthenticatedKeyRow): Identity {
  return {
    keyId: key.id,
    accountId: key.account_id,
    environment: key.environment,
    scopes: key.scopes,
    rateLimitPerMinute: key.rate_limit_per_minute,
    rateLimitBucket: `key:${key.id}`,
    caller: Object.freeze({ accountId: key.account_id, environment: key.environment, keyId: key.id }),
    pinnedVersion: key.pinned_version,
    firstUsedAt: key.first_used_at,
  };
}
