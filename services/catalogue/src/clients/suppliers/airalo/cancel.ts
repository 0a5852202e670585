import { SupplierError, type Termination } from '../port.ts';
import { AIRALO_LIMITS, ordersListSchema, refundAnswerSchema } from './api.ts';
import { usageOf } from './reports.ts';
import { read, type AiraloSession } from './session.ts';

/**
 * Asks Airalo for the money of unused eSIMs back (its only way back, AIR-17). Every request is
 * reviewed by a person at Airalo, who may refuse it; an approved one comes back as Airalo credit
 * (record 0158). Resolves with the request's id.
 */
export async function refundIccids(session: AiraloSession, vendorIccids: string[], notes: string): Promise<string> {
  const answer = await session.call({
    operation: 'refund',
    method: 'POST',
    path: '/refund',
    json: { iccids: vendorIccids, reason: 'OTHERS', notes },
    idempotent: false,
    limits: [{ key: 'refund', rule: AIRALO_LIMITS.refund }],
  });
  const refundId = read(refundAnswerSchema, answer, 'airalo refund').data.refund_id;
  for (const iccid of vendorIccids) session.refunds.set(iccid, refundId);
  return refundId;
}

/** The refund request of an unused eSIM: the one this process made already, or one made now (once, however many ask at once). */
function refundOnce(session: AiraloSession, vendorIccid: string): Promise<string> {
  const known = session.refunds.get(vendorIccid);
  if (known !== undefined) return Promise.resolve(known);
  const underWay = session.refundsUnderWay;
  const existing = underWay.get(vendorIccid);
  if (existing) return existing;
  const request = refundIccids(session, [vendorIccid], 'Cancelled by the reseller before first use.').finally(() => underWay.delete(vendorIccid));
  underWay.set(vendorIccid, request);
  return request;
}

/**
 * Ends an eSIM at Airalo: one never used is refunded (asked for; Airalo reviews it), one already
 * ended needs nothing, one in use cannot be ended (Airalo has no cancel).
 */
export async function terminateAiraloProfile(session: AiraloSession, iccid: string): Promise<Termination> {
  const { usage, vendorIccid } = await usageOf(session, iccid);
  switch (usage.status) {
    case 'NOT_ACTIVE':
      return { refund: 'requested', vendorRefundId: await refundOnce(session, vendorIccid) };
    case 'FINISHED':
    case 'EXPIRED':
    case 'RECYCLED':
      return { refund: 'none', vendorRefundId: null };
    case 'ACTIVE':
      throw new SupplierError('unsupported', 'airalo cannot end an eSIM in use');
    default:
      throw new SupplierError('unavailable', `airalo reports eSIM ${iccid} as ${usage.status}`);
  }
}

/**
 * Whether Airalo has refunded an eSIM: its only signal is the status of the order holding it
 * (`refunded`, or `partially_refunded` for an order of one eSIM). A partial refund of an order of
 * several eSIMs does not say which: the operator settles those from Airalo's notice (record 0158).
 */
export async function airaloRefundStatus(session: AiraloSession, iccid: string): Promise<'pending' | 'succeeded'> {
  for (const candidate of session.iccids.candidates(iccid)) {
    const answer = await session.call({
      operation: 'refund_status',
      method: 'GET',
      path: '/orders',
      query: { 'filter[iccid]': candidate, include: 'sims,status', limit: 10 },
      idempotent: true,
    });
    const order = read(ordersListSchema, answer, 'airalo orders').data.find((o) => (o.sims ?? []).some((sim) => sim.iccid === candidate));
    if (!order) continue;
    const status = order.status?.slug;
    if (status === 'refunded' || (status === 'partially_refunded' && (order.sims ?? []).length === 1)) return 'succeeded';
    return 'pending';
  }
  throw new SupplierError('unknown', `airalo has no order holding eSIM ${iccid}`);
}
