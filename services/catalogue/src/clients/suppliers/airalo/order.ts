import { setTimeout as sleep } from 'node:timers/promises';
import type { SuppliedProfile } from '@connectivity/contracts';
import { SupplierError, type OrderProfilesInput, type Purchase } from '../port.ts';
import { centsOf } from '../vendor-catalogue.ts';
import { asyncOrderAnswerSchema, orderAnswerSchema } from './api.ts';
import { findOrderByReference, profilesOf } from './find.ts';
import { refundIccids } from './cancel.ts';
import { read, type AiraloSession } from './session.ts';

const inDoubt = (session: AiraloSession, vendorRequestId: string | null, retryAfterSeconds = 2): Purchase => ({
  outcome: 'in_doubt',
  retryAfterSeconds,
  settlesWithinSeconds: Math.ceil(session.options.orderSettleMs / 1000),
  vendorRequestId,
});

/**
 * One Airalo purchase (record 0159). Small orders are placed with `POST /orders`, whose answer carries
 * the eSIMs; larger ones (`asyncFromQuantity` and up, where Airalo's answer grows slow) with
 * `POST /orders-async`, whose 202 says at once that Airalo took the order, which is then read back by
 * its description within the call's deadline. A call whose answer was lost, or an async order not
 * made yet, is in doubt: the caller finds it by our reference later, never buys it again.
 */
export async function placeAiraloOrder(session: AiraloSession, input: OrderProfilesInput): Promise<Purchase> {
  const { asyncOrdersWebhookUrl, asyncFromQuantity } = session.options;
  const placeAsync = asyncOrdersWebhookUrl !== undefined && input.quantity >= asyncFromQuantity;
  try {
    return placeAsync ? await placeAsyncOrder(session, input, asyncOrdersWebhookUrl) : await placeSyncOrder(session, input);
  } catch (error) {
    if (error instanceof SupplierError && error.failure === 'unavailable' && error.sent) return inDoubt(session, null, error.retryAfterSeconds ?? 2);
    throw error;
  }
}

async function placeSyncOrder(session: AiraloSession, { reference, bundle, quantity }: OrderProfilesInput): Promise<Purchase> {
  const answer = await session.call({
    operation: 'place_order',
    method: 'POST',
    path: '/orders',
    // Our order id as the order's description: what findOrder looks for after a crash.
    json: { quantity, package_id: bundle, type: 'sim', description: reference },
    idempotent: false,
  });
  const order = read(orderAnswerSchema, answer, 'airalo order').data;
  return bought(session, reference, quantity, order.sims, order.net_price === undefined ? null : centsOf(order.net_price), String(order.id));
}

async function placeAsyncOrder(session: AiraloSession, { reference, bundle, quantity }: OrderProfilesInput, webhookUrl: string): Promise<Purchase> {
  const started = Date.now();
  const answer = await session.call({
    operation: 'place_order_async',
    method: 'POST',
    path: '/orders-async',
    json: { quantity, package_id: bundle, type: 'sim', description: reference, webhook_url: webhookUrl },
    idempotent: false,
  });
  const requestId = read(asyncOrderAnswerSchema, answer, 'airalo async order').data.request_id;
  // Airalo makes the order in the background; it is read back by its description, within our deadline.
  for (let pause = 200; Date.now() - started + pause < session.options.timeoutMs; pause = Math.min(pause * 2, 1_000)) {
    await sleep(pause);
    const order = await findOrderByReference(session, reference);
    if (order) return bought(session, reference, quantity, order.sims ?? [], null, String(order.id));
  }
  session.options.logger.info({ reference, requestId }, 'airalo took an async order and has not made it yet');
  return inDoubt(session, requestId);
}

/** The eSIMs of a placed order, or (bought but unusable by us, or short) refunded at once and refused. */
async function bought(
  session: AiraloSession,
  reference: string,
  quantity: number,
  sims: { iccid: string; lpa: string; matching_id: string }[],
  unitCostCents: number | null,
  vendorOrderId: string,
): Promise<Purchase> {
  const profiles: SuppliedProfile[] | undefined = profilesOf(session, sims);
  if (profiles && profiles.length === quantity) return { outcome: 'bought', profiles, unitCostCents };
  session.options.logger.error(
    { reference, order: vendorOrderId, delivered: sims.length, quantity },
    'airalo delivered profiles we cannot use; refunding them',
  );
  await refundIccids(
    session,
    sims.map((sim) => sim.iccid),
    `Unusable delivery of order ${reference}.`,
  ).catch(() => undefined);
  throw new SupplierError('refused', `airalo delivered ${sims.length} usable of ${quantity} profiles`);
}
