// The closed value sets of the API (specification + DECISIONS.md).
export const ESIM_STATES = ['released', 'installed', 'active', 'suspended', 'expired'] as const;
export type EsimState = (typeof ESIM_STATES)[number];

/** Why an `expired` eSIM expired: its bundle's validity ended, its data ran out, or it was cancelled. */
export const EXPIRED_REASONS = ['validity_ended', 'data_exhausted', 'cancelled'] as const;
export type ExpiredReason = (typeof EXPIRED_REASONS)[number];

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
  'test_helpers',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SERVICE_VERSIONS = ['2026-09-01'] as const;
export type ServiceVersion = (typeof SERVICE_VERSIONS)[number];
export const CURRENT_SERVICE_VERSION: ServiceVersion = '2026-09-01';

export const CURRENCIES = ['USD'] as const;

export const API_KEY_STATUSES = ['active', 'revoked'] as const;

export const USAGE_THRESHOLDS = [50, 80, 100] as const;
export type UsageThreshold = (typeof USAGE_THRESHOLDS)[number];
