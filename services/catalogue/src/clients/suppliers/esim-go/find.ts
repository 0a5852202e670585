import type { SuppliedProfile, VendorOrder } from '@connectivity/contracts';
import { SupplierError, type OrderWindow, type PlacedOrder } from '../port.ts';
import { esimsListSchema, ordersListSchema, type EsimGoDetails } from './api.ts';
import { profileOf } from './order.ts';
import { customerRefOf, detailsOf } from './reports.ts';
import { read, type EsimGoSession } from './session.ts';

const PAGE = 100;
/** How far the vendor's clock may be behind ours when orders are searched by time (record 0132). */
const CLOCK_SKEW_SECONDS = 300;

/** The ICCIDs (vendor form) of the eSIMs carrying our order id as their customerRef. */
async function taggedWith(session: EsimGoSession, reference: string): Promise<string[]> {
  const answer = await session.call({
    operation: 'find_order',
    method: 'GET',
    path: '/esims',
    query: { filterBy: 'customerRef', filter: reference, perPage: PAGE },
    idempotent: true,
  });
  return read(esimsListSchema, answer, 'esim-go eSIMs')
    .esims.filter((e) => e.customerRef === reference)
    .map((e) => e.iccid);
}

/** Orders placed since a time, newest first, a page at a time (the window's end is cut by the caller). */
async function ordersSince(session: EsimGoSession, since: string, page: number) {
  return read(
    ordersListSchema,
    await session.call({
      operation: 'list_orders',
      method: 'GET',
      path: '/orders',
      query: { includeIccids: true, createdAt: `gte:${since}`, limit: PAGE, page },
      idempotent: true,
    }),
    'esim-go orders',
  );
}

/**
 * No eSIM carries our order id: the call that placed the order may have died between eSIM Go's
 * answer and the tagging (record 0132). An order of the same bundle and quantity, placed since
 * (allowing for clock skew), whose eSIMs carry no customerRef, was bought for an order of ours
 * and never attributed: it is claimed by tagging its eSIMs with this order id, then checked (a
 * claim another retry made at the same time shows, and this one is left to retry). An untagged
 * order still young enough for its own call to be tagging it is not touched: `unavailable`, so
 * the retry comes back later rather than buy again.
 */
async function claimUntaggedOrder(session: EsimGoSession, reference: string, placed: PlacedOrder): Promise<EsimGoDetails[]> {
  const { timeoutMs, retries } = session.options;
  const since = new Date((placed.since - CLOCK_SKEW_SECONDS) * 1000).toISOString();
  // The placing call: the order's answer, then each eSIM's tagging with its retries.
  const settleMs = timeoutMs * (1 + (retries + 1) * placed.quantity) + 2_000;
  for (let page = 1; ; page += 1) {
    const orders = await ordersSince(session, since, page);
    // Oldest first: an order long left untagged before a young one.
    for (const order of [...orders].sort((a, b) => Date.parse(a.createdDate) - Date.parse(b.createdDate))) {
      const [line, ...others] = order.order;
      if (!line || others.length > 0 || line.item !== placed.bundle || line.quantity !== placed.quantity || line.iccids.length !== placed.quantity) continue;
      const refs = await Promise.all(line.iccids.map((iccid) => customerRefOf(session, iccid)));
      if (refs.some((ref) => ref)) continue;
      if (Date.now() - Date.parse(order.createdDate) < settleMs) {
        throw new SupplierError('unavailable', `esim-go order ${order.orderReference ?? '?'} is untagged but young: the call that placed it may still tag it`);
      }
      for (const iccid of line.iccids) {
        await session.call({ operation: 'tag_esim', method: 'PUT', path: '/esims', json: { iccid, customerRef: reference }, idempotent: true });
      }
      // Read back, not remembered: a claim made by another retry at the same time must show.
      const claimed = await Promise.all(line.iccids.map((iccid) => detailsOf(session, iccid)));
      if (claimed.some((esim) => esim.customerRef !== reference)) {
        throw new SupplierError('unavailable', `esim-go order ${order.orderReference ?? '?'} was claimed by another order at the same time`);
      }
      session.options.logger.warn({ reference, order: order.orderReference }, 'esim-go order found untagged after a crash; claimed for its order');
      return claimed;
    }
    if (orders.length < PAGE) return [];
  }
}

export async function findEsimGoOrder(session: EsimGoSession, reference: string, placed?: PlacedOrder): Promise<SuppliedProfile[] | undefined> {
  const tagged = await taggedWith(session, reference);
  const esims =
    tagged.length > 0
      ? await Promise.all(tagged.map((iccid) => detailsOf(session, iccid)))
      : placed
        ? await claimUntaggedOrder(session, reference, placed)
        : [];
  if (esims.length === 0) return undefined;
  const profiles: SuppliedProfile[] = [];
  for (const esim of esims) {
    const profile = profileOf(session, esim);
    if (!profile) throw new SupplierError('refused', `esim-go eSIM of order ${reference} cannot be held by us`);
    profiles.push(profile);
  }
  return profiles;
}

/**
 * The customerRef of an order's first eSIM still on the account (null: none); undefined when none of
 * its eSIMs is (eSIM Go's returns process removed them, record 0235).
 */
async function referenceOfOrder(session: EsimGoSession, vendorIccids: string[]): Promise<string | null | undefined> {
  if (vendorIccids.length === 0) return null;
  for (const iccid of vendorIccids) {
    try {
      return (await customerRefOf(session, iccid)) ?? null;
    } catch (error) {
      if (!(error instanceof SupplierError) || error.failure !== 'unknown') throw error;
    }
  }
  return undefined;
}

/** eSIM Go's orders placed in the window, each with the customerRef its first eSIM carries (our order id, if any). */
export async function listEsimGoOrders(session: EsimGoSession, window: OrderWindow): Promise<{ orders: VendorOrder[]; nextPage: number | null }> {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  const listed = await ordersSince(session, iso(window.since), window.page);
  const orders: VendorOrder[] = [];
  for (const order of listed) {
    const at = Math.floor(Date.parse(order.createdDate) / 1000);
    if (Number.isNaN(at) || at < window.since || at > window.until) continue;
    const vendorIccids = order.order.flatMap((line) => line.iccids);
    const reference = await referenceOfOrder(session, vendorIccids);
    // Every eSIM of it went back through eSIM Go's returns process (record 0235): nothing left to judge.
    if (reference === undefined) continue;
    orders.push({
      vendor: 'esim-go',
      vendor_order_id: order.orderReference ?? `${order.createdDate}`,
      reference: reference === '' ? null : reference,
      bundle: order.order[0]?.item ?? '',
      quantity: order.order.reduce((sum, line) => sum + line.quantity, 0),
      iccids: vendorIccids.map((iccid) => session.iccids.fromVendor(iccid)).filter((i): i is string => i !== undefined),
      created_at: at,
    });
  }
  return { orders, nextPage: listed.length === PAGE ? window.page + 1 : null };
}
