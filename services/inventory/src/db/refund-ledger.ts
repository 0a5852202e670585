import type { EventType, RefundFailureReason, TerminationRefund } from '@connectivity/contracts';
import { domainMetrics, newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { EsimRecord } from '../domain/esim.ts';
import { refundStatusOf, toPublicRefund, type RefundRecord } from '../domain/refund.ts';
import { lockBalance, postMovement } from './ledger-repository.ts';
import { addEvent } from './outbox-events.ts';
import { insertRefund, unitPriceOfOrder, updateRefund } from './refund-repository.ts';

/** What the supplier did about money when it ended the profile (kept with the termination fact). */
export interface TerminationMoney {
  refund: TerminationRefund;
  vendor_refund_id: string | null;
}

async function addRefundEvent(trx: Knex.Transaction, type: Extract<EventType, `refund.${string}`>, refund: RefundRecord, at: Date): Promise<void> {
  await addEvent(trx, { type, environment: refund.environment, accountId: refund.account_id, data: { object: toPublicRefund(refund) } }, at);
}

/** Credits the refund's amount to the balance (a `refund` transaction); in the sandbox, only to a simulated balance in use. */
async function credit(trx: Knex.Transaction, refund: RefundRecord, at: Date): Promise<void> {
  const live = refund.environment === 'live';
  const balance = await lockBalance(trx, refund.account_id, refund.environment, { create: live, now: Math.floor(at.getTime() / 1000) });
  if (!balance?.enforced || refund.amount_cents === 0) return;
  await postMovement(trx, balance, { type: 'refund', amount_cents: refund.amount_cents, source: refund.id, description: `Refund of ${refund.esim_id}` }, at);
}

/**
 * Opens the refund of a cancelled live eSIM, in the transaction that records the cancel (record
 * 0158): `refund.created`, then at once `refund.succeeded` with the credit when the vendor refunded us
 * on the spot, or `refund.failed` when it does not refund; pending otherwise, looked at by the refund
 * worker from `checkAfterMs`. Nothing when the eSIM was in use (nothing to give back).
 */
export async function openRefund(
  trx: Knex.Transaction,
  esim: EsimRecord,
  money: TerminationMoney,
  at: Date,
  checkAfterMs: number,
): Promise<RefundRecord | undefined> {
  const outcome = refundStatusOf(money.refund);
  if (!outcome) return undefined;
  const seconds = Math.floor(at.getTime() / 1000);
  const refund: RefundRecord = {
    id: newId('refund'),
    account_id: esim.account_id,
    environment: esim.environment,
    esim_id: esim.id,
    order_id: esim.order_id,
    iccid: esim.iccid,
    amount_cents: await unitPriceOfOrder(trx, esim.order_id),
    currency: 'USD',
    status: 'pending',
    reason: 'esim_cancelled',
    failure_reason: null,
    vendor_refund_id: money.vendor_refund_id,
    next_check_at: at.getTime() + checkAfterMs,
    created_at: seconds,
    updated_at: seconds,
  };
  if (!(await insertRefund(trx, refund))) return undefined;
  await addRefundEvent(trx, 'refund.created', refund, at);
  domainMetrics.refund('pending');
  if (outcome.status === 'pending') return refund;
  return finishRefund(trx, refund, outcome.status, outcome.failure_reason, at);
}

/**
 * A pending refund settled: `succeeded` credits the balance (`refund.succeeded`); `failed` credits
 * nothing and says why (`refund.failed`). The caller holds the refund's row lock and saw it pending.
 */
export async function finishRefund(
  trx: Knex.Transaction,
  refund: RefundRecord,
  status: 'succeeded' | 'failed',
  failureReason: RefundFailureReason | null,
  at: Date,
): Promise<RefundRecord> {
  const finished: RefundRecord = {
    ...refund,
    status,
    failure_reason: status === 'failed' ? (failureReason ?? 'supplier_rejected') : null,
    next_check_at: null,
    updated_at: Math.floor(at.getTime() / 1000),
  };
  await updateRefund(trx, finished);
  if (status === 'succeeded') await credit(trx, finished, at);
  await addRefundEvent(trx, status === 'succeeded' ? 'refund.succeeded' : 'refund.failed', finished, at);
  domainMetrics.refund(status);
  return finished;
}
