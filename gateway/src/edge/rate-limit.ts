import type { Response } from 'express';
import type { RateLimitDecision } from '../db/rate-limiter.ts';
import type { Identity } from '../domain/identity.ts';
import { countRequest, refuseIfLimited } from '../use-cases/rate-limit.ts';
import type { EdgeDeps } from './deps.ts';

/**
 * Counts the request against its key (with the account's own budget when the operator set one)
 * and sets the rate-limit headers. It is counted before the version is checked, so a refusal for
 * the version carries the headers too; the refusal itself is `refuseIfKeyLimited`, after the
 * version (record 0255). Not async: the pipeline awaits the counter's own promise.
 */
export function countKeyRequest(deps: Pick<EdgeDeps, 'edge' | 'rateLimitPerMinute'>, res: Response, identity: Identity): Promise<RateLimitDecision> {
  return countRequest(deps, res, identity.rateLimitBucket, identity.rateLimitPerMinute ?? deps.rateLimitPerMinute);
}

/** Step 3 of record 0255: 429 `rate_limited` once the key's budget is spent. */
export function refuseIfKeyLimited(res: Response, decision: RateLimitDecision): void {
  refuseIfLimited(res, decision, 'key');
}
