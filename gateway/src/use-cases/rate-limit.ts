import { ApiError } from '@connectivity/contracts';
import { domainMetrics } from '@connectivity/platform';
import type { Request, Response } from 'express';
import type { RateLimitDecision } from '../db/rate-limiter.ts';
import { addressKey } from '../domain/client-address.ts';
import { rateLimitHeaders, secondsUntil } from '../domain/rate-limit-headers.ts';
import type { EdgeState } from '../context.ts';
import { setHeaders } from './response-headers.ts';

/** What counting needs: the limiter, the buckets seen spent, and the default budget. */
export interface RateLimitDeps {
  edge: Pick<EdgeState, 'rateLimiter' | 'spentBudgets'>;
  rateLimitPerMinute: number;
}

/**
 * Counts a request against a bucket and sets the rate-limit headers; `refuseIfLimited` then
 * answers 429 once the budget is spent. They are two steps so that the headers are on a response
 * the request gets for an earlier reason (record 0255 puts the version check before the limit).
 */
export async function countRequest(deps: RateLimitDeps, res: Response, bucket: string, perMinute: number): Promise<RateLimitDecision> {
  const decision = await deps.edge.rateLimiter.consume(bucket, perMinute);
  setHeaders(res, rateLimitHeaders(decision, decision.windowSeconds));
  return decision;
}

export function refuseIfLimited(res: Response, decision: RateLimitDecision, scope: 'key' | 'address'): void {
  if (decision.allowed) return;
  domainMetrics.rateLimitRefused(scope);
  res.setHeader('Retry-After', String(decision.retryAfterSeconds));
  throw new ApiError('rate_limited', {
    message: `Too many requests: ${decision.limit} per minute. Retry after ${decision.retryAfterSeconds} seconds.`,
  });
}

/**
 * The address budgets of requests without a valid key: `anonymous` for the API (a failed
 * authentication), `docs` for the reference and the spec, so a reader of /docs is not refused
 * because someone behind the same address guessed keys, and `hooks` for the suppliers' callbacks,
 * so neither a burst of callbacks nor anyone else's requests spend the other's budget.
 */
export type AddressBudget = 'anonymous' | 'docs' | 'hooks';

const BUCKET_PREFIXES: Record<AddressBudget, string> = { anonymous: 'ip', docs: 'docs', hooks: 'hooks' };

/**
 * The bucket of requests that carry no valid key: counted per client address (see TRUST_PROXY),
 * an IPv6 client per /64 (`addressKey`, record 0202).
 */
export const addressBucket = (req: Request, budget: AddressBudget) =>
  `${BUCKET_PREFIXES[budget]}:${addressKey(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;

/**
 * Counts a request that carries no valid key, per client address, and refuses it once spent. A
 * bucket this instance already saw spent is refused from memory, without counting again.
 */
export async function applyAddressLimit(
  deps: RateLimitDeps,
  req: Request,
  res: Response,
  budget: AddressBudget = 'anonymous',
  perMinute = deps.rateLimitPerMinute,
): Promise<void> {
  const bucket = addressBucket(req, budget);
  refuseIfSpent({ ...deps, rateLimitPerMinute: perMinute }, res, bucket);
  const decision = await countRequest(deps, res, bucket, perMinute);
  if (!decision.allowed) deps.edge.spentBudgets.spent(bucket, decision.retryAfterSeconds * 1000);
  refuseIfLimited(res, decision, 'address');
}

/** 429 at once for an address bucket known to be spent: no counter, no key lookup, no query. */
export function refuseIfSpent(deps: RateLimitDeps, res: Response, bucket: string): void {
  const ms = deps.edge.spentBudgets.refusedFor(bucket);
  if (ms === undefined) return;
  const resetSeconds = secondsUntil(ms);
  const decision: RateLimitDecision = {
    allowed: false,
    limit: deps.rateLimitPerMinute,
    remaining: 0,
    resetSeconds,
    retryAfterSeconds: resetSeconds,
    windowSeconds: deps.edge.rateLimiter.windowSeconds,
  };
  setHeaders(res, rateLimitHeaders(decision, decision.windowSeconds));
  refuseIfLimited(res, decision, 'address');
}
