import { createHash } from 'node:crypto';
import { supplierReportsSubject, type SupplierCallbackReceipt, type SupplierReportsMessage, type SupplierVendor } from '@connectivity/contracts';
import type { Bus } from '@connectivity/platform';
import type { CatalogueDeps } from './live-catalogue.ts';
import { parseSupplierCallback } from './supply-reports.ts';

export interface ReceiveSupplierCallbackDeps extends CatalogueDeps {
  bus: Bus;
  now?: () => Date;
}

/**
 * A vendor's callback, as the gateway received it (record 0262): the live supplier's adapter
 * verifies its signature on the raw bytes and reads it into profile reports, which go to inventory
 * on the bus; the answer waits for the bus's acknowledgement (JetStream has stored them), so a
 * callback the vendor was answered 200 is never lost, and one the bus did not take is an error
 * the vendor sends again. A signature that fails is 401 with nothing handed on. The message id is
 * the callback's digest: the same callback sent twice within the bus's duplicate window is one
 * message (and inventory's inbox stores a report once in any case, record 0150).
 */
export async function receiveSupplierCallback(
  deps: ReceiveSupplierCallbackDeps,
  vendor: SupplierVendor,
  callback: { body_base64: string; headers: Record<string, string> },
): Promise<SupplierCallbackReceipt> {
  const reports = await parseSupplierCallback(deps, vendor, callback);
  if (reports.length === 0) return { received: 0, stored: 0 };
  const message: SupplierReportsMessage = { vendor, reports, received_at_ms: (deps.now ?? (() => new Date()))().getTime() };
  const id = createHash('sha256').update(vendor).update('\n').update(callback.body_base64).digest('hex');
  const { duplicate } = await deps.bus.publish({ id: `callback_${id}`, subject: supplierReportsSubject(vendor), payload: message });
  return { received: reports.length, stored: duplicate ? 0 : reports.length };
}
