import type { SupplierCallbackReceipt, SupplierVendor } from '@connectivity/contracts';
import { injectTraceContext, signalAfterCommit } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { storeReports, SUPPLIER_REPORTS_SIGNAL } from '../db/supplier-report-repository.ts';

export interface ReceiveSupplierCallbackDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  now?: () => Date;
}

/**
 * A vendor's callback, as the gateway received it: catalogue (the live supplier's adapter)
 * verifies its signature on the raw bytes and reads it into profile reports; they are stored in
 * the inbox (a report stored before stores nothing), with this request's trace, and the report
 * worker is woken. Nothing is applied here, so the vendor is answered at once; a signature that
 * fails is catalogue's 401, passed on, with nothing stored.
 */
export async function receiveSupplierCallback(
  deps: ReceiveSupplierCallbackDeps,
  vendor: SupplierVendor,
  callback: { body_base64: string; headers: Record<string, string> },
): Promise<SupplierCallbackReceipt> {
  const reports = await deps.catalogue.parseCallback(vendor, callback);
  const nowMs = (deps.now ?? (() => new Date()))().getTime();
  const stored = await deps.knex.transaction(async (trx) => {
    const count = await storeReports(trx, vendor, reports, nowMs, injectTraceContext({}));
    if (count > 0) signalAfterCommit(trx, SUPPLIER_REPORTS_SIGNAL);
    return count;
  });
  return { received: reports.length, stored };
}
