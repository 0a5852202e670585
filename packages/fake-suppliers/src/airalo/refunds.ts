import type { AiraloContext } from './context.ts';
import { airaloDateTime, type AiraloRefund } from './state.ts';

export interface RefundRequest {
  iccids: string[];
  reason: string;
  notes?: string;
}

/**
 * Records a request from POST /v2/refund. Airalo reviews it by hand, so it waits (`pending`) for
 * the control to decide, unless the fake was started with `refundReview: 'approve'`.
 */
export function requestRefund(ctx: AiraloContext, request: RefundRequest): AiraloRefund {
  const refund: AiraloRefund = {
    refund_id: String(ctx.state.next_refund_id++),
    created_at: airaloDateTime(ctx.clock.now()).slice(0, 16),
    iccids: request.iccids,
    reason: request.reason,
    ...(request.notes ? { notes: request.notes } : {}),
    status: 'pending',
  };
  ctx.state.refunds.push(refund);
  ctx.save();
  return ctx.settings.refundReview === 'approve' ? approveRefund(ctx, refund.refund_id) : refund;
}

function pendingRefund(ctx: AiraloContext, refundId: string): AiraloRefund {
  const refund = ctx.state.refunds.find((r) => r.refund_id === refundId);
  if (!refund) throw new Error(`no refund request ${refundId} at this Airalo fake`);
  if (refund.status !== 'pending') throw new Error(`refund request ${refundId} is already ${refund.status}`);
  return refund;
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

/**
 * The review agrees: each eSIM of the request that is still unused and not yet refunded is
 * credited its net price to the balance (Airalo credit for future transactions) and its order
 * becomes `refunded` or `partially_refunded`, the only change a partner can read through the API.
 */
export function approveRefund(ctx: AiraloContext, refundId: string): AiraloRefund {
  const refund = pendingRefund(ctx, refundId);
  const refunded: string[] = [];
  let credited = 0;
  for (const iccid of new Set(refund.iccids)) {
    const sim = ctx.state.sims[iccid];
    if (!sim || sim.status !== 'NOT_ACTIVE' || sim.refund_id) continue;
    sim.refund_id = refundId;
    credited += ctx.packages.get(sim.package_id)!.pkg.net_price;
    refunded.push(iccid);
    const order = ctx.state.orders.find((o) => o.id === sim.order_id)!;
    const refundedInOrder = order.iccids.filter((i) => ctx.state.sims[i]!.refund_id).length;
    order.status = refundedInOrder === order.iccids.length ? 'refunded' : 'partially_refunded';
  }
  ctx.state.balance = cents(ctx.state.balance + credited);
  Object.assign(refund, { status: 'approved', decided_at: airaloDateTime(ctx.clock.now()), refunded_iccids: refunded, credited: cents(credited) });
  ctx.save();
  return structuredClone(refund);
}

/** The review refuses: nothing is credited and the orders keep their status. */
export function rejectRefund(ctx: AiraloContext, refundId: string): AiraloRefund {
  const refund = pendingRefund(ctx, refundId);
  Object.assign(refund, { status: 'rejected', decided_at: airaloDateTime(ctx.clock.now()) });
  ctx.save();
  return structuredClone(refund);
}
