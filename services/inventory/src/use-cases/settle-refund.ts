import { ApiError, type Refund } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { finishRefund } from '../db/refund-ledger.ts';
import { findRefund } from '../db/refund-repository.ts';
import { toPublicRefund } from '../domain/refund.ts';

/**
 * POST /internal/refunds/{id}/settle: the operator records the vendor's decision on a refund it
 * reviews by hand and announces by notice (Airalo's rejection has no API, record 0158). A refund
 * already settled the same way is answered as it is; settled the other way, it is 409.
 */
export async function settleRefund(knex: Knex, refundId: string, status: 'succeeded' | 'failed', now = new Date()): Promise<Refund> {
  return knex.transaction(async (trx) => {
    const refund = await findRefund(trx, refundId, { lock: true });
    if (!refund) throw new ApiError('resource_not_found', { param: 'refundId', message: 'No such refund.' });
    if (refund.status === status) return toPublicRefund(refund);
    if (refund.status !== 'pending') throw refundAlreadySettled(refund.status);
    return toPublicRefund(await finishRefund(trx, refund, status, status === 'failed' ? 'supplier_rejected' : null, now));
  });
}

export const refundAlreadySettled = (status: string) =>
  new ApiError('invalid_state_transition', { message: `The refund has already ${status}; a settled refund does not change.` });
