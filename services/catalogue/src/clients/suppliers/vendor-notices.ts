import type { SupplierVendor } from '@connectivity/contracts';
import { domainMetrics, type Logger } from '@connectivity/platform';

/** What a vendor's notice about our account with it says: Airalo's credit limit, eSIM Go's low or insufficient balance. */
export type VendorNoticeKind = 'credit_limit' | 'low_balance' | 'insufficient_balance';

/** The notices each vendor sends about our account. */
export const VENDOR_NOTICE_KINDS: Readonly<Record<SupplierVendor, readonly VendorNoticeKind[]>> = {
  airalo: ['credit_limit'],
  'esim-go': ['low_balance', 'insufficient_balance'],
};

/** The configured vendor's notice counters start at 0 (an alert on their increase then sees the first notice). */
export function expectVendorNotices(vendor: SupplierVendor): void {
  domainMetrics.supplierNoticesExpected(vendor, VENDOR_NOTICE_KINDS[vendor]);
}

/**
 * A vendor's notice about our account with it (record 0237) is the operators' business, never a
 * tenant's: it becomes a metric (counted by vendor and kind, and the balance it states as a gauge), which
 * the alerts in deploy/prometheus watch, and a log line at warn. No event is written for it.
 */
export function recordVendorNotice(logger: Logger, vendor: SupplierVendor, kind: VendorNoticeKind, balance: number | null, said?: string): void {
  domainMetrics.supplierNotice(vendor, kind, balance);
  logger.warn({ vendor, kind, balance, said }, 'supplier notice about our account: see the runbook, "Vendor notices"');
}
