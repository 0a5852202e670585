import { ApiError, type SupplierRelease } from '@connectivity/contracts';
import { signalWork } from '@connectivity/platform';
import type { Knex } from 'knex';
import { RELEASES_SIGNAL, retryReleaseNow } from '../db/release-repository.ts';
import { toPublicRelease } from '../domain/supplier-release.ts';

/**
 * POST /internal/supplier-releases/{releaseId}/retry, the operator's retry of one release: back to
 * pending, due now. A released one has nothing left to do (409); the worker is woken so the
 * retry happens at once rather than at its next poll.
 */
export async function retrySupplierRelease(knex: Knex, releaseId: string, nowMs: number): Promise<SupplierRelease> {
  const record = await retryReleaseNow(knex, releaseId, nowMs);
  if (!record) throw new ApiError('resource_not_found', { param: 'release_id', message: `No supplier release ${releaseId}.` });
  if (record.status === 'released') {
    throw new ApiError('invalid_state_transition', {
      param: 'release_id',
      message: `Supplier release ${releaseId} is already released; there is nothing to retry.`,
      detail: 'Only pending and abandoned releases can be retried.',
    });
  }
  signalWork(RELEASES_SIGNAL);
  return toPublicRelease(record);
}
