import { ApiError, type List, type SupplierRelease, type SupplierReleaseStatus } from '@connectivity/contracts';
import { toPage, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { releaseRepository, type SupplierReleaseRecord } from '../db/release-repository.ts';

const positionSchema = z.object({ created_at: z.number().int(), order_reference: z.string().min(1) });
const seconds = (ms: number) => Math.floor(ms / 1000);

/** The operator's view of a release: times in Unix seconds, like every other object. */
export function toPublicRelease(record: SupplierReleaseRecord): SupplierRelease {
  return {
    object: 'supplier_release',
    id: record.order_reference,
    account_id: record.account_id,
    iccids: record.iccids,
    reason: record.reason,
    status: record.status,
    attempts: record.attempts,
    next_attempt_at: record.status === 'pending' ? seconds(record.next_attempt_at) : null,
    last_error: record.last_error,
    created_at: seconds(record.created_at),
    finished_at: record.finished_at === null ? null : seconds(record.finished_at),
  };
}

/** GET /internal/supplier-releases: newest first, the cursor bound to the status filter. */
export async function listReleases(
  knex: Knex,
  cursors: CursorCodec,
  query: { status?: SupplierReleaseStatus | undefined; cursor?: string | undefined; limit: number },
): Promise<List<SupplierRelease>> {
  const binding = { list: 'supplier_releases', status: query.status ?? null };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await releaseRepository.list(knex, { status: query.status }, after, query.limit + 1);
  const page = toPage(records, query.limit, (last) => cursors.encode({ created_at: last.created_at, order_reference: last.order_reference }, binding));
  return { ...page, data: page.data.map(toPublicRelease) };
}

/**
 * The operator's retry of one release: back to pending, due now. A released one has nothing
 * left to do (409); the worker is woken so the retry happens at once rather than at its next poll.
 */
export async function retryRelease(knex: Knex, releaseId: string, nowMs: number): Promise<SupplierRelease> {
  const record = await releaseRepository.retryNow(knex, releaseId, nowMs);
  if (!record) throw new ApiError('resource_not_found', { param: 'release_id', message: `No supplier release ${releaseId}.` });
  if (record.status === 'released') {
    throw new ApiError('invalid_state_transition', {
      param: 'release_id',
      message: `Supplier release ${releaseId} is already released; there is nothing to retry.`,
      detail: 'Only pending and abandoned releases can be retried.',
    });
  }
  return toPublicRelease(record);
}
