import type { SuppliedProfile, VendorOrder } from '@connectivity/contracts';
import { SupplierError, type OrderWindow } from '../port.ts';
import { airaloTime, ordersListSchema } from './api.ts';
import { read, type AiraloSession } from './session.ts';

type ListedOrder = ReturnType<typeof ordersListSchema.parse>['data'][number];

const PAGE = 50;

/** Our profiles of Airalo's eSIMs; undefined when one cannot be held by us. */
export function profilesOf(session: AiraloSession, sims: { iccid: string; lpa: string; matching_id: string }[]): SuppliedProfile[] | undefined {
  const profiles = sims.map((sim) => ({ iccid: session.iccids.fromVendor(sim.iccid), smdp_address: sim.lpa, matching_id: sim.matching_id }));
  if (profiles.some((p) => p.iccid === undefined || p.smdp_address.includes('$') || p.matching_id.includes('$'))) return undefined;
  return profiles as SuppliedProfile[];
}

/**
 * The order placed with our reference as its description. The filter matches a part of the
 * description: only an exact match is our order. Newest first; more than one would be a double
 * purchase, and the first one placed is ours (the audit releases the other, record 0161).
 */
export async function findOrderByReference(session: AiraloSession, reference: string): Promise<ListedOrder | undefined> {
  const answer = await session.call({
    operation: 'find_order',
    method: 'GET',
    path: '/orders',
    query: { 'filter[description]': reference, include: 'sims', limit: PAGE },
    idempotent: true,
  });
  const matches = read(ordersListSchema, answer, 'airalo orders').data.filter((o) => o.description === reference);
  if (matches.length > 1) session.options.logger.error({ reference, orders: matches.map((o) => o.id) }, 'airalo holds several orders for one reference');
  return matches.at(-1);
}

export async function findAiraloOrder(session: AiraloSession, reference: string): Promise<SuppliedProfile[] | undefined> {
  const order = await findOrderByReference(session, reference);
  if (!order) return undefined;
  const profiles = profilesOf(session, order.sims ?? []);
  if (!profiles) throw new SupplierError('refused', `airalo order ${order.id} holds profiles we cannot use`);
  return profiles;
}

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** Airalo's orders placed in the window (its filter is by day; the window's edges are cut here). */
export async function listAiraloOrders(session: AiraloSession, window: OrderWindow): Promise<{ orders: VendorOrder[]; nextPage: number | null }> {
  const answer = await session.call({
    operation: 'list_orders',
    method: 'GET',
    path: '/orders',
    query: { 'filter[created_at]': `${day(window.since)} - ${day(window.until)}`, include: 'sims', limit: PAGE, page: window.page },
    idempotent: true,
  });
  const listed = read(ordersListSchema, answer, 'airalo orders');
  const orders: VendorOrder[] = [];
  for (const order of listed.data) {
    // A top-up bought onto one of our eSIMs is no order of profiles: judged as one, the audit would
    // release the eSIM it was bought for (record 0248).
    if (order.type === 'topup') continue;
    const at = airaloTime(order.created_at);
    if (at === undefined || at < window.since || at > window.until) continue;
    const iccids = (order.sims ?? []).map((sim) => session.iccids.fromVendor(sim.iccid)).filter((i): i is string => i !== undefined);
    orders.push({
      vendor: 'airalo',
      vendor_order_id: String(order.id),
      reference: order.description ?? null,
      bundle: order.package_id ?? '',
      quantity: order.quantity ?? iccids.length,
      iccids,
      created_at: at,
    });
  }
  const last = listed.meta?.last_page ?? window.page;
  return { orders, nextPage: listed.data.length === PAGE && window.page < last ? window.page + 1 : null };
}
