import { errorMessage } from '@connectivity/platform';
import type { SuppliedProfile } from '@connectivity/contracts';
import { inDoubtAfter, SupplierError, type OrderProfilesInput, type Purchase } from '../port.ts';
import { centsOf } from '../vendor-catalogue.ts';
import { orderAnswerSchema, validateAnswerSchema } from './api.ts';
import { revokeFor } from './cancel.ts';
import { read, type EsimGoSession } from './session.ts';

const orderLine = (bundle: string, quantity: number) => [{ type: 'bundle', item: bundle, quantity, allowReassign: false }];

/** USD cents of an eSIM Go amount; another currency cannot be compared with our prices (record 0134). */
function usdCents(amount: number | undefined, currency: string | undefined): number | undefined {
  if (amount === undefined) return undefined;
  if (currency !== undefined && currency.toUpperCase() !== 'USD')
    throw new SupplierError('unavailable', `esim-go prices in ${currency}; only USD costs are priced`);
  return centsOf(amount);
}

/** What eSIM Go would charge per eSIM now (`type: validate` buys nothing): the price checked before buying (record 0160). */
export async function quoteEsimGo(session: EsimGoSession, bundle: string, quantity: number): Promise<number | undefined> {
  const answer = await session.call({
    operation: 'validate_order',
    method: 'POST',
    path: '/orders',
    json: { type: 'validate', assign: true, order: orderLine(bundle, quantity) },
    idempotent: true,
  });
  const quoted = read(validateAnswerSchema, answer, 'esim-go validate');
  return usdCents(quoted.order[0]?.pricePerUnit, quoted.currency);
}

/**
 * One eSIM Go purchase (record 0159): a transaction order assigned to new eSIMs, each then tagged with
 * our order id as its customerRef (orders carry no reference of ours, record 0132). A call whose answer
 * was lost, or eSIM Go's documented 503 "processing" (its `Retry-After` kept), is in doubt: the
 * order may be made, and is found by its tags or claimed untagged later, never bought again.
 */
export async function placeEsimGoOrder(session: EsimGoSession, { reference, bundle, quantity }: OrderProfilesInput): Promise<Purchase> {
  let answer;
  try {
    answer = await session.call({
      operation: 'place_order',
      method: 'POST',
      path: '/orders',
      json: { type: 'transaction', assign: true, order: orderLine(bundle, quantity) },
      idempotent: false,
    });
  } catch (error) {
    const doubt = inDoubtAfter(error, session.options.orderSettleMs);
    if (doubt) return doubt;
    throw error;
  }
  const order = read(orderAnswerSchema, answer, 'esim-go order');
  const esims = order.order.flatMap((line) => line.esims);
  for (const esim of esims) {
    await session
      .call({ operation: 'tag_esim', method: 'PUT', path: '/esims', json: { iccid: esim.iccid, customerRef: reference }, idempotent: true })
      .then(() => session.tags.set(esim.iccid, reference))
      .catch((error: unknown) => session.options.logger.error({ reference, err: errorMessage(error) }, 'esim-go eSIM could not be tagged with its order'));
  }
  const usable = esims.map((esim) => profileOf(session, esim)).filter((p): p is SuppliedProfile => p !== undefined);
  if (usable.length === quantity) return { outcome: 'bought', profiles: usable, unitCostCents: boughtCost(order.order[0]?.pricePerUnit, order.currency) };
  session.options.logger.error(
    { reference, order: order.orderReference, delivered: esims.length, quantity },
    'esim-go delivered profiles we cannot use; revoking them',
  );
  for (const esim of esims) await revokeFor(session, esim.iccid).catch(() => undefined);
  throw new SupplierError('refused', `esim-go delivered ${esims.length} of ${quantity} usable profiles`);
}

/** What an order charged per eSIM in USD cents; null when not said, or in another currency (then not comparable). */
function boughtCost(amount: number | undefined, currency: string | undefined): number | null {
  try {
    return usdCents(amount, currency) ?? null;
  } catch {
    return null;
  }
}

/** Our profile of an eSIM Go eSIM; undefined when it cannot be held by us. */
export function profileOf(session: EsimGoSession, esim: { iccid: string; matchingId: string; smdpAddress: string }): SuppliedProfile | undefined {
  const iccid = session.iccids.fromVendor(esim.iccid);
  if (iccid === undefined || esim.smdpAddress.includes('$') || esim.matchingId.includes('$')) return undefined;
  return { iccid, smdp_address: esim.smdpAddress, matching_id: esim.matchingId };
}
