import { SupplierError, type Termination } from '../port.ts';
import { IN_USE_STATES, revokeAnswerSchema, UNUSED_STATES } from './api.ts';
import { bundlesOf } from './reports.ts';
import { read, withVendorIccid, type EsimGoSession } from './session.ts';

/**
 * Revokes the bundle in use, asking for an unused one's price back to the balance (which eSIM Go
 * grants only where refunds are enabled for the account, record 0158). Says what became of the
 * money: `refunded`, `not_refundable` (unused, but not refunded), or `none` (in use, or nothing in
 * use: already ended, which is success).
 */
export async function revokeFor(session: EsimGoSession, vendorIccid: string): Promise<Termination> {
  const bundleInUse = async () =>
    (await bundlesOf(session, vendorIccid))
      .flatMap((b) => b.assignments.map((a) => ({ name: b.name, state: a.bundleState })))
      .find((a) => IN_USE_STATES.includes(a.state));
  const inUse = await bundleInUse();
  if (!inUse) return { refund: 'none', vendorRefundId: null };
  try {
    const answer = await session.call({
      operation: 'revoke_bundle',
      method: 'DELETE',
      path: `/esims/${encodeURIComponent(vendorIccid)}/bundles/${encodeURIComponent(inUse.name)}`,
      query: { refundToBalance: true },
      idempotent: false,
    });
    const refunded = /refunded to balance/i.test(read(revokeAnswerSchema, answer, 'esim-go revoke').status);
    if (refunded) return { refund: 'refunded', vendorRefundId: null };
    return { refund: UNUSED_STATES.includes(inUse.state) ? 'not_refundable' : 'none', vendorRefundId: null };
  } catch (error) {
    // A cancel running alongside (or an earlier attempt whose answer was lost) revoked it between our
    // read and our revoke, and eSIM Go refuses to revoke it again: it has ended, which is what was
    // asked; what became of its money was said to that other call.
    if (error instanceof SupplierError && error.failure === 'refused' && !(await bundleInUse())) return { refund: 'none', vendorRefundId: null };
    throw error;
  }
}

/**
 * Ends a profile. One eSIM Go no longer has is ended (record 0235): a revoke that leaves a
 * never-installed eSIM bare starts eSIM Go's returns process, which removes it from the account,
 * so a repeated cancel (or one running alongside) finds nothing, and that is what was asked.
 */
export async function terminateEsimGoProfile(session: EsimGoSession, iccid: string): Promise<Termination> {
  try {
    return await withVendorIccid(session, iccid, (vendorIccid) => revokeFor(session, vendorIccid));
  } catch (error) {
    if (error instanceof SupplierError && error.failure === 'unknown') return { refund: 'none', vendorRefundId: null };
    throw error;
  }
}
