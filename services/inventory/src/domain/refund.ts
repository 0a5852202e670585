import type { Environment, Refund, RefundFailureReason, RefundReason, RefundStatus, TerminationRefund } from '@connectivity/contracts';

/** A refund as inventory keeps it (record 0158). */
export interface RefundRecord {
  id: string;
  account_id: string;
  environment: Environment;
  esim_id: string;
  order_id: string;
  iccid: string;
  amount_cents: number;
  currency: 'USD';
  status: RefundStatus;
  reason: RefundReason;
  failure_reason: RefundFailureReason | null;
  /** The vendor's name for the request it reviews (Airalo's `refund_id`); null when none. */
  vendor_refund_id: string | null;
  /** When the worker next asks the vendor about a pending refund (Unix ms); null once settled. */
  next_check_at: number | null;
  created_at: number;
  updated_at: number;
}

export const toPublicRefund = (refund: RefundRecord): Refund => ({
  object: 'refund',
  id: refund.id,
  esim: refund.esim_id,
  order: refund.order_id,
  amount_cents: refund.amount_cents,
  currency: refund.currency,
  status: refund.status,
  reason: refund.reason,
  failure_reason: refund.failure_reason,
  created_at: refund.created_at,
  updated_at: refund.updated_at,
});

/**
 * The refund a cancel opens from what the vendor did about money: none when the eSIM was in use or
 * had ended (nothing to give back); `succeeded` at once when the vendor refunded us on the spot
 * (eSIM Go); `pending` while the vendor reviews it (Airalo); `failed` when it does not refund it.
 */
export function refundStatusOf(refund: TerminationRefund): { status: RefundStatus; failure_reason: RefundFailureReason | null } | undefined {
  switch (refund) {
    case 'none':
      return undefined;
    case 'refunded':
      return { status: 'succeeded', failure_reason: null };
    case 'requested':
      return { status: 'pending', failure_reason: null };
    case 'not_refundable':
      return { status: 'failed', failure_reason: 'supplier_not_refundable' };
  }
}
