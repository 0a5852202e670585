import { inDoubtAfter, SupplierError, type TopupPlaced, type TopupPurchase, type VendorTopupOffer } from '../port.ts';
import { withKnownIccid } from '../vendor-iccid.ts';
import { centsOf, usableBundleName } from '../vendor-catalogue.ts';
import { AIRALO_MB, airaloCost, topupOrderAnswerSchema, topupsAnswerSchema } from './api.ts';
import { findOrderByReference } from './find.ts';
import { read, type AiraloSession } from './session.ts';

/**
 * Top-ups at Airalo (record 0248), as its top-up document (kept with the fakes) has them: the packages
 * that can top an eSIM up (`GET /sims/{iccid}/topups`), and one order that buys one onto it
 * (`POST /orders/topups`) carrying our top-up's id as its description, as an order carries our order's
 * id: what finds it again when its answer was lost.
 */

/**
 * The packages Airalo says can top the eSIM up, with their cost: `net_price` (net pricing), or `price`
 * less the account's discount (discount pricing, where `net_price` is null). A recycled eSIM (422, code
 * 73: "can no longer be used or topped up") has none.
 */
export async function airaloTopupOffers(session: AiraloSession, iccid: string): Promise<VendorTopupOffer[]> {
  let answer;
  try {
    answer = await withKnownIccid(session.iccids, 'airalo', iccid, (candidate) =>
      session.call({ operation: 'topup_offers', method: 'GET', path: `/sims/${encodeURIComponent(candidate)}/topups`, idempotent: true }),
    );
  } catch (error) {
    if (error instanceof SupplierError && error.status === 422) return [];
    throw error;
  }
  const { pricing, data } = read(topupsAnswerSchema, answer, 'airalo top-up packages');
  return data
    .filter((pkg) => pkg.type === 'topup' && usableBundleName(pkg.id) && pkg.day >= 1)
    .map((pkg) => ({
      name: pkg.id,
      description: `${pkg.title ?? pkg.id}, added to this eSIM.`,
      data_mb: pkg.is_unlimited ? null : Math.round(pkg.amount),
      unlimited: pkg.is_unlimited,
      duration_days: pkg.day,
      bytes_per_mb: AIRALO_MB,
      costCents: centsOf(airaloCost(pkg, pricing)),
    }));
}

/**
 * ONE top-up order (record 0159): a call whose answer was lost (a timeout after it was sent, a 5xx) is in
 * doubt, found later by its description (`findAiraloTopup`), never bought again before. A package Airalo
 * says cannot top this eSIM up (422 on `package_id`) is `unknown`; a recycled eSIM is refused.
 */
export async function topUpAiralo(session: AiraloSession, input: { reference: string; iccid: string; bundle: string }): Promise<TopupPurchase> {
  // The form of the ICCID Airalo answered the offers in (read just before, record 0248): a purchase is
  // sent once, never tried again under another form.
  const vendorIccid = session.iccids.candidates(input.iccid)[0]!;
  let answer;
  try {
    answer = await session.call({
      operation: 'topup_order',
      method: 'POST',
      path: '/orders/topups',
      json: { package_id: input.bundle, iccid: vendorIccid, description: input.reference },
      idempotent: false,
    });
  } catch (error) {
    const doubt = inDoubtAfter(error, session.options.orderSettleMs);
    if (doubt) return doubt;
    throw error;
  }
  const order = read(topupOrderAnswerSchema, answer, 'airalo top-up order').data;
  return { outcome: 'bought', unitCostCents: order.net_price === null || order.net_price === undefined ? null : centsOf(order.net_price) };
}

/** Whether the top-up placed under our reference was made: an order of type `topup` with that exact description, of that package. */
export async function findAiraloTopup(session: AiraloSession, placed: TopupPlaced): Promise<boolean> {
  const order = await findOrderByReference(session, placed.reference);
  return order !== undefined && order.type === 'topup' && (order.package_id === undefined || order.package_id === placed.bundle);
}
