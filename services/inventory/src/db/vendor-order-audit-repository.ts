import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

/** What the audit of the vendor's orders decided about one (record 0161). */
export type AuditVerdict = 'ours' | 'released' | 'orphan';

const audited = (db: Knex) => db.withSchema(SCHEMA).from('audited_vendor_orders');

/** Which of the vendor's order ids the audit has settled already. */
export async function auditedOrders(db: Knex, vendor: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = (await audited(db).select('vendor_order_id').where('vendor', vendor).whereIn('vendor_order_id', ids)) as { vendor_order_id: string }[];
  return new Set(rows.map((row) => row.vendor_order_id));
}

export async function recordAudit(db: Knex, vendor: string, vendorOrderId: string, verdict: AuditVerdict, nowMs: number): Promise<void> {
  await audited(db).insert({ vendor, vendor_order_id: vendorOrderId, verdict, audited_at: nowMs }).onConflict(['vendor', 'vendor_order_id']).ignore();
}

/** Forgets verdicts older than the audit looks back: their orders are never listed again. */
export async function forgetAuditsBefore(db: Knex, beforeMs: number): Promise<void> {
  await audited(db).where('audited_at', '<', beforeMs).delete();
}

/** What inventory knows of an order id the vendor's order carries: recorded, its intent's state, released. */
export async function knownOrder(
  db: Knex,
  orderId: string,
): Promise<{ recorded: boolean; intent: { state: string; account_id: string } | undefined; released: boolean }> {
  const [order, intent, release] = await Promise.all([
    db.withSchema(SCHEMA).from('orders').where('id', orderId).first<{ id: string } | undefined>('id'),
    db.withSchema(SCHEMA).from('purchase_intents').where('order_id', orderId).first<{ state: string; account_id: string } | undefined>('state', 'account_id'),
    db.withSchema(SCHEMA).from('supplier_releases').where('order_reference', orderId).first<{ order_reference: string } | undefined>('order_reference'),
  ]);
  return { recorded: order !== undefined, intent, released: release !== undefined };
}

/** Whether a pending intent of this bundle and quantity could still claim an untagged vendor order (record 0132). */
export async function pendingIntentCouldClaim(db: Knex, bundle: string, quantity: number): Promise<boolean> {
  const row = await db
    .withSchema(SCHEMA)
    .from('purchase_intents')
    .where({ bundle, quantity, state: 'pending' })
    .first<{ order_id: string } | undefined>('order_id');
  return row !== undefined;
}
