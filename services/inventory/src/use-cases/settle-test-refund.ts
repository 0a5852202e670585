import type { Refund } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import type { Knex } from 'knex';
import { finishRefund } from '../db/refund-ledger.ts';
import { findRefund } from '../db/refund-repository.ts';
import { assertCanReach, notFound } from '../domain/access.ts';
import { toPublicRefund } from '../domain/refund.ts';
import { assertSandboxCaller } from '../domain/test-clock.ts';
import { refundAlreadySettled } from './settle-refund.ts';

/** POST /v1/test/refunds/{id}/settle: the simulated supplier decides a pending sandbox refund now (record 0158). */
export async function settleTestRefund(
  knex: Knex,
  caller: Caller,
  id: string,
  status: 'succeeded' | 'failed',
  claim: IdempotencyClaim,
  now = new Date(),
): Promise<Refund> {
  assertSandboxCaller(caller.environment);
  return claim.answerInTransaction(knex, 200, async (trx) => {
    const refund = await findRefund(trx, id, { lock: true });
    if (!refund) throw notFound('id', 'refund');
    assertCanReach(refund, caller, 'id', 'refund');
    if (refund.status !== 'pending') throw refundAlreadySettled(refund.status);
    return toPublicRefund(await finishRefund(trx, refund, status, status === 'failed' ? 'supplier_rejected' : null, now));
  });
}
