// The nine event types of the specification, in its order, then the ones added since (additive).
export const EVENT_TYPES = [
  'esim.released',
  'esim.installed',
  'esim.activated',
  'esim.suspended',
  'esim.expired',
  'esim.usage.threshold',
  'api_key.issued',
  'api_key.first_used',
  'api_key.revoked',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'balance.low',
  'esim.topped_up',
  'esim.expiring',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What a webhook endpoint may subscribe to: event types, or `*` for all of them. */
export const WEBHOOK_EVENT_SELECTORS = ['*', ...EVENT_TYPES] as const;
export type WebhookEventSelector = (typeof WEBHOOK_EVENT_SELECTORS)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
