import type { RouteEntry } from '@connectivity/contracts';
import { domainMetrics, idempotencyOwner, keyReused, requestFingerprint } from '@connectivity/platform';
import type { Request } from 'express';
import { requireIdempotencyKey } from '../domain/idempotency-key.ts';
import type { Identity } from '../domain/identity.ts';
import type { EdgeDeps } from './deps.ts';

/**
 * Step 7 of record 0255: a mutating route needs `Idempotency-Key` (the key as validated, never
 * read again from the request); any other route has none.
 */
export function idempotencyKeyOf(req: Request, entry: RouteEntry): string | undefined {
  return entry.metadata.idempotent ? requireIdempotencyKey(req.get('idempotency-key')) : undefined;
}

/**
 * Step 9 for a mutating route: the part of idempotency only the edge can do. The service that
 * owns the route keeps the record that matters (the platform's `idempotentRequests`): it claims
 * the key before the change, stores the answer in the change's own transaction, answers a
 * duplicate still running with 409 and `Retry-After`, and replays a completed one. What no
 * single service sees is a key used on two routes, so the edge notes the request each key was
 * first used for, in one statement, and refuses another request with the same key (409
 * `idempotency_key_reused`). The same request goes on to its service, whatever happened to an
 * earlier attempt (answered, crashed, timed out): the service's record decides. The edge keeps
 * no answers: replays are the owning service's. The key belongs to the account and environment
 * (`idempotencyOwner`, record 0200), not to the API key.
 */
export async function checkIdempotencyKey(
  deps: Pick<EdgeDeps, 'edge' | 'idempotency'>,
  req: Request,
  identity: Identity,
  idempotencyKey: string,
  body: Buffer,
): Promise<void> {
  const reservation = await deps.edge.reservations.reserve({
    keyId: idempotencyOwner(identity.accountId, identity.environment),
    idempotencyKey,
    fingerprint: requestFingerprint(req.method, req.originalUrl, body),
    retentionMs: deps.idempotency.retentionMs,
  });
  if (reservation === 'other_request') {
    domainMetrics.idempotencyConflict('mismatch');
    throw keyReused();
  }
}
