import { z } from 'zod';
import { inDoubtAfter, SupplierError, type TopupPurchase } from '../port.ts';
import { centsOf } from '../vendor-catalogue.ts';
import { bundlesAnswerSchema, orderAnswerSchema } from './api.ts';
import { read, withVendorIccid, type EsimGoSession } from './session.ts';

/**
 * Top-ups at eSIM Go (record 0245). The vendor's document offers two ways to put a bundle on an eSIM it
 * already issued: `POST /esims/apply` (which only applies a bundle already bought into the inventory),
 * and a transaction order whose line names the eSIM (`iccids`, `assign: true`). The order is the one
 * call that buys and applies at once, so it is the purchase: there is no window between buying into the
 * inventory and applying where a crash leaves a bundle paid for and on no eSIM. `allowReassign: false`,
 * so a bundle the profile cannot take is refused rather than put on a new eSIM we never ordered.
 */

const compatibilitySchema = z.object({ compatible: z.boolean() });

async function compatible(session: EsimGoSession, vendorIccid: string, bundle: string): Promise<boolean> {
  const answer = await session.call({
    operation: 'check_compatibility',
    method: 'GET',
    path: `/esims/${encodeURIComponent(vendorIccid)}/compatible/${encodeURIComponent(bundle)}`,
    idempotent: true,
  });
  return read(compatibilitySchema, answer, 'esim-go compatibility').compatible;
}

/**
 * One top-up purchase: the profile's compatibility with the bundle is checked first (idempotent; an
 * incompatible bundle is `unsupported` and nothing is bought), then ONE transaction order naming the
 * profile. A call whose answer was lost, or eSIM Go's 503 "processing", is in doubt (record 0159): found
 * later on the profile's bundles by `findEsimGoTopup`, never bought again before.
 */
export async function topUpEsimGo(session: EsimGoSession, input: { iccid: string; bundle: string }): Promise<TopupPurchase> {
  const vendorIccid = await withVendorIccid(session, input.iccid, async (candidate) => {
    if (!(await compatible(session, candidate, input.bundle))) {
      throw new SupplierError('unsupported', `esim-go says ${input.bundle} cannot be applied to this eSIM`);
    }
    return candidate;
  });
  let answer;
  try {
    answer = await session.call({
      operation: 'topup_order',
      method: 'POST',
      path: '/orders',
      json: { type: 'transaction', assign: true, order: [{ type: 'bundle', item: input.bundle, quantity: 1, iccids: [vendorIccid], allowReassign: false }] },
      idempotent: false,
    });
  } catch (error) {
    const doubt = inDoubtAfter(error, session.options.orderSettleMs);
    if (doubt) return doubt;
    throw error;
  }
  const order = read(orderAnswerSchema, answer, 'esim-go top-up order');
  const currency = order.currency?.toUpperCase();
  const unit = order.order[0]?.pricePerUnit;
  // Another currency cannot be compared with our prices (record 0134): the cost is then unknown.
  return { outcome: 'bought', unitCostCents: unit === undefined || (currency !== undefined && currency !== 'USD') ? null : centsOf(unit) };
}

/**
 * Whether a bundle `bundle` was put on the profile since `since` (Unix ms, when the top-up's hold was
 * taken): an order of ours cannot carry a reference at eSIM Go (record 0132), so an in-doubt top-up is
 * recognised on the profile's own bundles by name and assignment time (to the vendor's fraction of a
 * second; no allowance for clock skew, since the eSIM's own assignment of the same bundle may be only
 * moments older, record 0245).
 */
export async function findEsimGoTopup(session: EsimGoSession, input: { iccid: string; bundle: string; since: number }): Promise<boolean> {
  return withVendorIccid(session, input.iccid, async (vendorIccid) => {
    const answer = await session.call({
      operation: 'esim_bundles',
      method: 'GET',
      path: `/esims/${encodeURIComponent(vendorIccid)}/bundles`,
      query: { includeUsed: true, limit: 200 },
      idempotent: true,
    });
    return read(bundlesAnswerSchema, answer, 'esim-go bundles').bundles.some(
      (bundle) =>
        bundle.name === input.bundle &&
        bundle.assignments.some((assignment) => assignment.assignmentDateTime !== undefined && Date.parse(assignment.assignmentDateTime) >= input.since),
    );
  });
}
