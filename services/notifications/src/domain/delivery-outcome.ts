import type { WebhookAttemptError } from '@connectivity/contracts';

/**
 * What one HTTP answer (or the lack of one) means for a delivery: success on any 2xx; a
 * `Retry-After` on 429/503 is honoured; 410 Gone means the receiver wants nothing more, so the
 * endpoint is disabled at once (record 0253).
 */
export type AttemptResult =
  | { kind: 'response'; statusCode: number; retryAfter: string | undefined; durationMs: number }
  /** No answer: `failure` is what the tenant sees, `detail` goes to our logs only. */
  | { kind: 'error'; failure: Exclude<WebhookAttemptError, 'http_status'>; detail: string; durationMs: number };

export type DeliveryOutcome =
  | { succeeded: true; statusCode: number }
  | {
      succeeded: false;
      statusCode: number | null;
      error: WebhookAttemptError;
      retryAfterMs: number | undefined;
      /** Set when the endpoint must be disabled now, whatever the retry schedule says. */
      disableReason: string | undefined;
    };

export const GONE_DISABLE_REASON = 'The endpoint answered 410 Gone: it is disabled until you enable it again.';

export function classifyAttempt(result: AttemptResult, now: number): DeliveryOutcome {
  if (result.kind === 'error') {
    return { succeeded: false, statusCode: null, error: result.failure, retryAfterMs: undefined, disableReason: undefined };
  }
  const { statusCode } = result;
  if (statusCode >= 200 && statusCode < 300) return { succeeded: true, statusCode };
  const honoursRetryAfter = statusCode === 429 || statusCode === 503;
  return {
    succeeded: false,
    statusCode,
    error: 'http_status',
    retryAfterMs: honoursRetryAfter ? parseRetryAfterMs(result.retryAfter, now) : undefined,
    disableReason: statusCode === 410 ? GONE_DISABLE_REASON : undefined,
  };
}

/** `Retry-After` is delta-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
