import { randomUUID } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { claim, complete, release, type StoredResponse } from '../db/idempotency-repository.ts';
import { requestFingerprint } from '../domain/fingerprint.ts';
import { UpstreamFailure } from './forward.ts';

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

export type IdempotentResult = { response: StoredResponse; replayed: boolean };

/**
 * Steps 9 and 10 for a mutating route. The key is claimed atomically before the service is
 * called, so a duplicate (concurrent or later) never reaches the service a second time: it gets
 * the stored response (`replayed`), or 409 `idempotency_key_reused` when the request differs or
 * the first one is still running. Whatever the service answers, 2xx or not, is stored. When the
 * service certainly never ran (it could not be reached) the claim is given back, so a retry
 * with the same key runs; when the outcome is unknown (a timeout) the claim is kept until its
 * lease ends, so a quick retry cannot run the operation twice.
 */
export async function runIdempotent(
  db: Knex,
  call: IdempotentCall,
  options: { leaseMs: number; retentionMs: number },
  execute: () => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  const claimId = randomUUID();
  const where = { keyId: call.keyId, idempotencyKey: call.idempotencyKey, claimId };
  const outcome = await claim(db, {
    keyId: call.keyId,
    idempotencyKey: call.idempotencyKey,
    fingerprint: requestFingerprint(call.method, call.pathWithQuery, call.body),
    claimId,
    leaseMs: options.leaseMs,
    retentionMs: options.retentionMs,
  });
  switch (outcome.kind) {
    case 'replay':
      return { response: outcome.response, replayed: true };
    case 'mismatch':
      throw new ApiError('idempotency_key_reused', {
        param: 'Idempotency-Key',
        message: 'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
      });
    case 'in_progress':
      throw new ApiError('idempotency_key_reused', {
        param: 'Idempotency-Key',
        message: 'A request with this Idempotency-Key is still in progress. Retry later.',
      });
    case 'claimed':
      break;
  }

  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    if (!(error instanceof UpstreamFailure) || error.notSent) await release(db, where);
    throw error;
  }
  await complete(db, where, response);
  return { response, replayed: false };
}
