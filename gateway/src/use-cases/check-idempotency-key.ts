import { domainMetrics, keyReused, requestFingerprint } from '@connectivity/platform';
import type { KeyReservations } from '../db/idempotency-repository.ts';

export interface IdempotentCall {
  /** The account and environment the key belongs to (`idempotencyOwner`, record 0200), not the API key. */
  owner: string;
  idempotencyKey: string;
  method: string;
  pathWithQuery: string;
  body: Buffer;
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
 * no answers: replays are the owning service's.
 */
export async function checkIdempotencyKey(reservations: KeyReservations, call: IdempotentCall, retentionMs: number): Promise<void> {
  const reservation = await reservations.reserve({
    keyId: call.owner,
    idempotencyKey: call.idempotencyKey,
    fingerprint: requestFingerprint(call.method, call.pathWithQuery, call.body),
    retentionMs,
  });
  if (reservation === 'other_request') {
    domainMetrics.idempotencyConflict('mismatch');
    throw keyReused();
  }
}
