import {
  appleInstallUrl,
  type Environment,
  type Esim,
  type EsimState,
  type EventType,
  type ExpiredReason,
  type Metadata,
  type ValidityStart,
} from '@connectivity/contracts';
import { sortedMetadata } from './metadata.ts';

/** An eSIM as inventory keeps it: the public fields plus its owner and thresholds notified. */
export interface EsimRecord {
  id: string;
  account_id: string;
  environment: Environment;
  order_id: string;
  iccid: string;
  state: EsimState;
  /** Why it expired; null until it is `expired`. */
  expired_reason: ExpiredReason | null;
  bundle: string | null;
  data_used_bytes: number;
  data_limit_bytes: number | null;
  thresholds_notified: number[];
  activation_code: string | null;
  smdp_address: string | null;
  matching_id: string | null;
  /** When the bundle's validity starts counting (record 0230). */
  validity_start: ValidityStart;
  /** The bundle's duration, to set `expires_at` when a `first_use` validity starts; null when it states none. */
  validity_days: number | null;
  expires_at: number | null;
  /** The supplier's install-by deadline; null when it has none. */
  install_by: number | null;
  created_at: number;
  updated_at: number;
  metadata: Metadata;
  /** The test clock whose time the eSIM lives in; null in real time. */
  test_clock: string | null;
}

export function toPublicEsim(esim: EsimRecord): Esim {
  return {
    object: 'esim',
    id: esim.id,
    iccid: esim.iccid,
    state: esim.state,
    expired_reason: esim.expired_reason,
    bundle: esim.bundle,
    data_used_bytes: esim.data_used_bytes,
    data_limit_bytes: esim.data_limit_bytes,
    activation_code: esim.activation_code,
    apple_install_url: appleInstallUrl(esim.activation_code),
    smdp_address: esim.smdp_address,
    matching_id: esim.matching_id,
    validity_start: esim.validity_start,
    expires_at: esim.expires_at,
    install_by: esim.install_by,
    created_at: esim.created_at,
    updated_at: esim.updated_at,
    simulated: esim.environment === 'test',
    metadata: sortedMetadata(esim.metadata),
    test_clock: esim.test_clock,
  };
}

/** The event each state emits when an eSIM moves into it (`active` is `esim.activated`). */
export const STATE_EVENT_TYPES: Readonly<Record<EsimState, EventType>> = {
  released: 'esim.released',
  installed: 'esim.installed',
  active: 'esim.activated',
  suspended: 'esim.suspended',
  expired: 'esim.expired',
};

/** An ICCID is 19 digits; anything else given as `{id}` is an eSIM id. */
export const looksLikeIccid = (value: string): boolean => /^\d{19}$/.test(value);

/** Whether the eSIM's validity has ended while it is not expired yet (the sweeper's job). */
export const isPastValidity = (esim: Pick<EsimRecord, 'state' | 'expires_at' | 'environment'>, nowSeconds: number): boolean =>
  // A live eSIM ends on its supplier's word, never on our clock (record 0230).
  esim.environment === 'test' && esim.state !== 'expired' && esim.expires_at !== null && esim.expires_at <= nowSeconds;
