import { randomUUID } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import { domainMetrics, inProgress, isReplayable, keyReused, requestFingerprint, type Logger } from '@connectivity/platform';
import type { Response } from 'express';
import type { Knex } from 'knex';
import { gatewayIdempotency, type StoredResponse } from '../db/idempotency-repository.ts';

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
 * called, so a concurrent duplicate never reaches the service: it gets 409
 * `idempotency_key_reused` with `Retry-After` while the first runs, the stored answer
 * (`replayed`) after it, and 409 when the request differs. The claim's lease is short and
 * renewed while the call runs, so a crashed gateway's claim is taken over within one lease.
 *
 * The owning service records the key with its change (see the platform's `idempotentRequests`),
 * so what the edge keeps is only the answer to replay: a replayable answer is stored; when the
 * call got no answer (unreachable, reset, timed out) or a 5xx or `Retry-After` answer, the
 * claim is given back, and a retry asks the service again, which answers with its own record
 * of anything that did commit.
 */
export async function runIdempotent(
  db: Knex,
  call: IdempotentCall,
  options: { leaseMs: number; retentionMs: number; logger: Logger; res: Response },
  execute: () => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  const ref = { keyId: call.keyId, idempotencyKey: call.idempotencyKey, claimId: randomUUID() };
  const outcome = await gatewayIdempotency.claim(db, {
    ...ref,
    fingerprint: requestFingerprint(call.method, call.pathWithQuery, call.body),
    leaseMs: options.leaseMs,
    retentionMs: options.retentionMs,
  });
  switch (outcome.kind) {
    case 'replay':
      domainMetrics.idempotencyReplayed('edge');
      return { response: outcome.response, replayed: true };
    case 'mismatch':
      domainMetrics.idempotencyConflict('mismatch');
      throw keyReused();
    case 'in_progress':
      domainMetrics.idempotencyConflict('in_progress');
      throw inProgress(options.res);
    case 'claimed':
      break;
  }

  const stopHolding = gatewayIdempotency.hold(db, ref, options.leaseMs, (error) =>
    options.logger.warn({ err: error }, 'renewing an idempotency claim failed'),
  );
  let response: StoredResponse;
  try {
    response = await execute();
  } catch (error) {
    stopHolding();
    await gatewayIdempotency.release(db, ref);
    throw error;
  }
  stopHolding();
  if (isReplayable(response)) await gatewayIdempotency.complete(db, ref, response);
  else await gatewayIdempotency.release(db, ref);
  return { response, replayed: false };
}
