/** Usage statuses of GET /v2/sims/{iccid}/usage (AIR-11). */
export type AiraloUsageStatus = 'NOT_ACTIVE' | 'ACTIVE' | 'FINISHED' | 'UNKNOWN' | 'EXPIRED' | 'RECYCLED';

export type AiraloOrderStatus = 'completed' | 'failed' | 'refunded' | 'partially_refunded';

export interface AiraloOrder {
  id: number;
  code: string;
  created_at: string;
  package_id: string;
  quantity: number;
  description: string | null;
  brand_settings_name: string | null;
  status: AiraloOrderStatus;
  iccids: string[];
  /** Set for orders placed through POST /v2/orders-async. */
  request_id?: string;
}

export interface AiraloSim {
  id: number;
  iccid: string;
  created_at: string;
  order_id: number;
  package_id: string;
  lpa: string;
  matching_id: string;
  installed_at?: number;
  /** The bundle started (first network attach): the validity counts from here (first-usage policy). */
  activated_at?: number;
  expires_at?: number;
  finished_at?: number;
  used_bytes: number;
  status: AiraloUsageStatus;
  /** Low-data notification levels already sent ("75%", "90%", "3days", "1days"). */
  notified: string[];
  brand_settings_name: string | null;
  refund_id?: string;
  recycled_at?: number;
  /** Packages bought onto the eSIM with POST /v2/orders/topups, oldest first (absent: none). */
  topups?: AiraloSimTopup[];
}

/** A top-up package on an eSIM: its entry of the package history, and the order that bought it. */
export interface AiraloSimTopup {
  /** The package history entry's id. */
  id: number;
  package_id: string;
  order_id: number;
  created_at: string;
  /** When it was bought (fake clock, ms). */
  added_at: number;
}

/** Airalo's support team reviews every refund request by hand: pending until a person decides. */
export type AiraloRefundStatus = 'pending' | 'approved' | 'rejected';

export interface AiraloRefund {
  refund_id: string;
  created_at: string;
  iccids: string[];
  reason: string;
  notes?: string;
  status: AiraloRefundStatus;
  /** When the review decided ("Y-m-d H:i:s"). */
  decided_at?: string;
  /** Approved: the eSIMs credited (those still unused and not yet refunded at approval). */
  refunded_iccids?: string[];
  /** Approved: the credit added to the balance, in USD (the net prices of `refunded_iccids`). */
  credited?: number;
}

export interface AiraloNotification {
  type: 'webhook_low_data' | 'webhook_credit_limit' | 'async_orders';
  contact_point: string;
  levels?: number[];
}

/** Everything the fake remembers; plain JSON so it can be kept in a file across restarts. */
export interface AiraloState {
  next_order_id: number;
  next_sim_id: number;
  next_refund_id: number;
  balance: number;
  tokens: Record<string, { client_id: string; expires_at: number }>;
  orders: AiraloOrder[];
  sims: Record<string, AiraloSim>;
  notifications: AiraloNotification[];
  refunds: AiraloRefund[];
}

export function freshAiraloState(balance: number): AiraloState {
  return {
    next_order_id: 583747,
    next_sim_id: 709006,
    next_refund_id: 12345,
    balance,
    tokens: {},
    orders: [],
    sims: {},
    notifications: [],
    refunds: [],
  };
}

/**
 * A state kept by an older fake (refunds without a status) as this one reads it: those refunds
 * were approved the moment they were asked for.
 */
export function upgradeAiraloState(state: AiraloState): AiraloState {
  for (const refund of state.refunds as (Omit<AiraloRefund, 'status'> & { status?: AiraloRefundStatus })[]) refund.status ??= 'approved';
  return state;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Airalo's timestamps: "2025-04-15 14:02:38" (UTC). */
export function airaloDateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}
