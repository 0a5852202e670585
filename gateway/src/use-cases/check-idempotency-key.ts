import { ApiError } from '@connectivity/contracts';
import { domainMetrics, keyReused, requestFingerprint } from '@connectivity/platform';
import type { KeyReservations } from '../db/idempotency-repository.ts';

const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

/** Step 7: a mutating route needs `Idempotency-Key`, 8 to 128 characters. */
export function requireIdempotencyKey(header: string | undefined): string {
  if (header === undefined || header === '') throw new ApiError('idempotency_key_required');
  if (header.length < MIN_LENGTH || header.length > MAX_LENGTH) {
    throw new ApiError('invalid_parameter', {
      param: 'Idempotency-Key',
      message: `Invalid header \`Idempotency-Key\`: must be ${MIN_LENGTH} to ${MAX_LENGTH} characters long.`,
    });
  }
  return header;
}

export interface IdempotentCall {
  keyId: string;
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
 * earlier attempt (answered, crashed, timed out): the service's record decides.
 *
 * The edge used to claim and store answers itself as well: two more writes per call, which cost
 * about a third of the order path's CPU, for replays the owning service gives anyway.
 */
export async function checkIdempotencyKey(reservations: KeyReservations, call: IdempotentCall, retentionMs: number): Promise<void> {
  const reservation = await reservations.reserve({
    keyId: call.keyId,
    idempotencyKey: call.idempotencyKey,
    fingerprint: requestFingerprint(call.method, call.pathWithQuery, call.body),
    retentionMs,
  });
  if (reservation === 'other_request') {
    domainMetrics.idempotencyConflict('mismatch');
    throw keyReused();
  }
}
