import type { SupplierRelease } from '@connectivity/contracts';

/** A release as inventory keeps it: every column, times in Unix milliseconds. */
export interface SupplierReleaseRecord {
  order_reference: string;
  account_id: string;
  iccids: string[];
  reason: string;
  attempts: number;
  status: 'pending' | 'released' | 'abandoned';
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

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
