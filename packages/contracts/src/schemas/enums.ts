// The closed value sets of the API (the specification and records 0250-0258).
export const ESIM_STATES = ['released', 'installed', 'active', 'suspended', 'expired'] as const;
export type EsimState = (typeof ESIM_STATES)[number];

/**
 * Why an `expired` eSIM expired: its bundle's validity ended, its data ran out, it was cancelled, or
 * the supplier deleted the profile from its account (record 0235).
 */
export const EXPIRED_REASONS = ['validity_ended', 'data_exhausted', 'cancelled', 'supplier_deleted'] as const;
export type ExpiredReason = (typeof EXPIRED_REASONS)[number];

/**
 * When a bundle's validity starts counting (record 0230): at `purchase`, or at `first_use` (the
 * vendor's first data use or first network attach, as the vendor counts it).
 */
export const VALIDITY_STARTS = ['purchase', 'first_use'] as const;
export type ValidityStart = (typeof VALIDITY_STARTS)[number];

/** A test clock is `advancing` while an advance moves its objects through time, `ready` otherwise. */
export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;
export type TestClockStatus = (typeof TEST_CLOCK_STATUSES)[number];

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const REGIONS = ['africa', 'asia', 'caribbean', 'europe', 'latin-america', 'middle-east', 'north-america', 'oceania', 'global'] as const;
export type Region = (typeof REGIONS)[number];

export const SCOPES = [
  'catalogue:read',
  'esim:read',
  'esim:write',
  'events:read',
  'events:write',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'balance:read',
  'test_helpers',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SERVICE_VERSIONS = ['2026-09-01'] as const;
export type ServiceVersion = (typeof SERVICE_VERSIONS)[number];
export const CURRENT_SERVICE_VERSION: ServiceVersion = '2026-09-01';

export const CURRENCIES = ['USD'] as const;

/**
 * What moved a balance (records 0156 and 0157): `order` (a live order's price, held before the supplier
 * is asked and kept when the order is recorded), `order_release` (an order's hold given back: the
 * purchase failed or was given up), `refund` (a cancelled eSIM's price, once the supplier refunded us),
 * `credit` (money the operator added), `adjustment` (the operator set the balance, or a sandbox helper),
 * `topup` and `topup_release` (a top-up's price and its hold given back, as an order's: record 0242).
 */
export const BALANCE_TRANSACTION_TYPES = ['order', 'order_release', 'refund', 'credit', 'adjustment', 'topup', 'topup_release'] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** A refund is `pending` until the supplier has refunded us (or refused to), then `succeeded` or `failed`. */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Why a refund was made: an unused live eSIM was cancelled. */
export const REFUND_REASONS = ['esim_cancelled'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * Why a refund failed: the supplier reviewed it and said no (`supplier_rejected`), or it does not refund
 * this eSIM at all (`supplier_not_refundable`: e.g. refunds are not enabled for our account at eSIM Go).
 */
export const REFUND_FAILURE_REASONS = ['supplier_rejected', 'supplier_not_refundable'] as const;
export type RefundFailureReason = (typeof REFUND_FAILURE_REASONS)[number];

export const API_KEY_STATUSES = ['active', 'revoked'] as const;

export const USAGE_THRESHOLDS = [50, 80, 100] as const;
export type UsageThreshold = (typeof USAGE_THRESHOLDS)[number];

/** The marks of `esim.expiring`: days before `expires_at`, farthest first (record 0236). */
export const EXPIRING_MARKS = [3, 1] as const;
export type ExpiringMark = (typeof EXPIRING_MARKS)[number];

/**
 * A bundle on an eSIM (GET /v1/esim/{id}/bundles, record 0241): `queued` (bought, waiting for the one
 * before it to end), `active` (the one in use), `depleted` (its data used up), `expired` (its validity ended).
 */
export const ESIM_BUNDLE_STATES = ['queued', 'active', 'depleted', 'expired'] as const;
export type EsimBundleState = (typeof ESIM_BUNDLE_STATES)[number];

/** A top-up is `succeeded` once its bundle is on the eSIM (record 0240). */
export const TOPUP_STATUSES = ['succeeded'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];
