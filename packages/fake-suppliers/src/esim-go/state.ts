/** bundleState values (bundle-status guide, EG-18). */
export type BundleState = 'processing' | 'queued' | 'active' | 'depleted' | 'expired' | 'revoked' | 'lapsed';

/** profileStatus values (eSIM Go help article, EG-18). */
export type ProfileStatus = 'Released' | 'Downloaded' | 'Installed' | 'Enabled' | 'Disabled' | 'Deleted' | 'Unavailable' | 'Confirmed' | 'Error';

export interface EsimGoAssignment {
  id: string;
  bundle: string;
  /** assignmentReference: the order (or apply) reference and a counter. */
  reference: string;
  assigned_at: number;
  initial_bytes: number;
  remaining_bytes: number;
  state: BundleState;
  unlimited: boolean;
  price: number;
  started_at?: number;
  ends_at?: number;
  /** Utilisation thresholds (per cent) already reported by callback. */
  notified: number[];
  first_use_sent: boolean;
}

export interface EsimGoEsim {
  iccid: string;
  matching_id: string;
  smdp_address: string;
  pin: string;
  puk: string;
  profile_status: ProfileStatus;
  first_installed_at?: number;
  attached_at?: number;
  customer_ref: string;
  assigned_at: number;
  history: { name: string; bundleName: string; date: string }[];
  assignments: EsimGoAssignment[];
}

export interface EsimGoOrderLine {
  item: string;
  quantity: number;
  iccids: string[];
  price_per_unit: number;
  allow_reassign: boolean;
}

export interface EsimGoOrder {
  reference: string;
  created_at: number;
  assigned: boolean;
  lines: EsimGoOrderLine[];
  total: number;
  source_ip: string;
}

export interface EsimGoInventoryItem {
  /** usageId for POST /inventory/refund. */
  id: number;
  bundle: string;
  total: number;
  remaining: number;
  bought_at: number;
  price: number;
}

/** Everything the fake remembers; plain JSON so it can be kept in a file across restarts. */
export interface EsimGoState {
  organisation: { name: string; currency: string; balance: number; callback_url: string };
  esims: Record<string, EsimGoEsim>;
  /** eSIMs the returns process took off the account (the revoke pages): gone from every endpoint, kept here for the control surface. */
  returned?: Record<string, EsimGoEsim>;
  orders: EsimGoOrder[];
  inventory: EsimGoInventoryItem[];
  apply_references: Record<string, string[]>;
  next_assignment_id: number;
  next_usage_id: number;
  next_topup_ref: number;
}

export function freshEsimGoState(balance: number, callbackUrl: string): EsimGoState {
  return {
    organisation: { name: 'Fake Partner Ltd', currency: 'USD', balance, callback_url: callbackUrl },
    esims: {},
    orders: [],
    inventory: [],
    apply_references: {},
    next_assignment_id: 215009266,
    next_usage_id: 1,
    next_topup_ref: 987654321,
  };
}
