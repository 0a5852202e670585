import { NO_ACCOUNT_ID, type VendorOrder } from '@connectivity/contracts';
import { domainMetrics, errorMessage, newId, signalAfterCommit, startPoller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { insertRelease, RELEASES_SIGNAL } from '../db/release-repository.ts';
import { auditedOrders, forgetAuditsBefore, knownOrder, pendingIntentCouldClaim, recordAudit, type AuditVerdict } from '../db/vendor-order-audit-repository.ts';

export interface SupplierOrderAuditOptions {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  intervalMs: number;
  /** How far back the vendor's orders are read. */
  lookbackMs: number;
  /** How old a vendor order must be before it is judged: a purchase in flight may still claim it. */
  minAgeMs: number;
  now?: () => number;
}

const ORDER_ID = /^ord_[0-9A-Za-z]{20,}$/;

/**
 * The audit of the vendor's orders against ours (record 0161), the last line of "one purchase per
 * order": every vendor order of the look-back window, once old enough, is ours (its order recorded,
 * or its purchase already released) or an orphan — bought for an order we gave up (its purchase
 * voided while the vendor still made it), or carrying no order of ours at all. An orphan's profiles
 * are handed to the supplier-release work (refunded or revoked at the vendor), counted
 * (`connectivity_supplier_orphan_orders_total`) and logged as an error, never left. A vendor order
 * still in play (its intent pending, or an untagged eSIM Go order a pending purchase may claim) is
 * left for a later pass.
 */
export function startSupplierOrderAudit(options: SupplierOrderAuditOptions) {
  const pass = supplierOrderAuditPass(options);
  const poller = startPoller({
    name: 'supplier order audit',
    intervalMs: options.intervalMs,
    logger: options.logger,
    async pass() {
      try {
        return await pass();
      } catch (error) {
        // No live supplier, or it is down: the next pass reads the same window again.
        options.logger.warn({ err: errorMessage(error) }, 'the audit of the vendor’s orders could not run; will retry');
        return { done: 0, more: false };
      }
    },
  });
  return { runOnce: () => poller.runOnce(), stop: () => poller.stop() };
}

/** One pass of the audit over the look-back window; it throws when the vendor's orders cannot be read. */
export function supplierOrderAuditPass(options: Omit<SupplierOrderAuditOptions, 'intervalMs'>) {
  const now = options.now ?? (() => Date.now());

  async function judge(order: VendorOrder): Promise<AuditVerdict | undefined> {
    const reference = order.reference !== null && ORDER_ID.test(order.reference) ? order.reference : null;
    let accountId = NO_ACCOUNT_ID;
    if (reference !== null) {
      const known = await knownOrder(options.knex, reference);
      if (known.recorded) return 'ours';
      if (known.intent?.state === 'pending') return undefined;
      if (known.released) return 'released';
      accountId = known.intent?.account_id ?? NO_ACCOUNT_ID;
    } else if (await pendingIntentCouldClaim(options.knex, order.bundle, order.quantity)) {
      return undefined;
    }
    if (order.iccids.length === 0) return 'ours';
    await options.knex.transaction(async (trx) => {
      await insertRelease(
        trx,
        {
          order_reference: reference ?? newId('order'),
          account_id: accountId,
          iccids: order.iccids,
          reason: `orphan ${order.vendor} order ${order.vendor_order_id}`,
        },
        now(),
      );
      signalAfterCommit(trx, RELEASES_SIGNAL);
    });
    domainMetrics.supplierOrphanOrder(order.vendor);
    options.logger.error(
      { vendor: order.vendor, vendorOrderId: order.vendor_order_id, reference: order.reference, profiles: order.iccids.length },
      'a vendor order matches no order of ours; its profiles are released',
    );
    return 'orphan';
  }

  async function pass(): Promise<{ done: number; more: boolean }> {
    const at = now();
    const window = { since: Math.floor((at - options.lookbackMs) / 1000), until: Math.floor((at - options.minAgeMs) / 1000) };
    let judged = 0;
    for (let page: number | null = 1; page !== null;) {
      const answer = await options.catalogue.vendorOrders({ ...window, page });
      const orders = answer.orders;
      const vendor = orders[0]?.vendor;
      const seen =
        vendor === undefined
          ? new Set<string>()
          : await auditedOrders(
              options.knex,
              vendor,
              orders.map((o) => o.vendor_order_id),
            );
      for (const order of orders.filter((o) => !seen.has(o.vendor_order_id))) {
        const verdict = await judge(order);
        if (verdict === undefined) continue;
        await recordAudit(options.knex, order.vendor, order.vendor_order_id, verdict, at);
        judged += 1;
      }
      page = answer.next_page;
    }
    await forgetAuditsBefore(options.knex, at - 2 * options.lookbackMs);
    return { done: judged, more: false };
  }

  return pass;
}
