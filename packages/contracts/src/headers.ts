// Public HTTP header names in their canonical spelling; Node lower-cases them on arrival.
export const REQUEST_HEADERS = {
  authorization: 'Authorization',
  idempotencyKey: 'Idempotency-Key',
  serviceVersion: 'Service-Version',
  /** The event stream's resume position (Server-Sent Events). */
  lastEventId: 'Last-Event-ID',
} as const;

export const RESPONSE_HEADERS = {
  requestId: 'Request-Id',
  serviceVersion: 'Service-Version',
  idempotentReplayed: 'Idempotent-Replayed',
  rateLimitPolicy: 'RateLimit-Policy',
  rateLimit: 'RateLimit',
  rateLimitLimit: 'RateLimit-Limit',
  rateLimitRemaining: 'RateLimit-Remaining',
  rateLimitReset: 'RateLimit-Reset',
  retryAfter: 'Retry-After',
  deprecation: 'Deprecation',
  sunset: 'Sunset',
  link: 'Link',
} as const;

/** Webhook delivery headers of the Standard Webhooks specification. */
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const KNOWN = new Map<string, string>([...Object.values(REQUEST_HEADERS), ...Object.values(RESPONSE_HEADERS)].map((name) => [name.toLowerCase(), name]));

/** `idempotency-key` -> `Idempotency-Key`; unknown names are title-cased per dash-separated word. */
export function canonicalHeaderName(name: string): string {
  const lower = name.toLowerCase();
  return KNOWN.get(lower) ?? lower.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
}
