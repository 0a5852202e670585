import { RESPONSE_HEADERS } from '@connectivity/contracts/public';

/** How the client retries; every field has a default (see `DEFAULT_RETRY`). */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. Default 2, as Stripe's clients. */
  maxRetries: number;
  /** The backoff cap of the first retry; each retry doubles it, up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. */
  maxRetryAfterMs: number;
  /** Waits `ms`; rejects when `signal` aborts. Injectable so tests need not wait. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1): the jitter. Injectable so tests are deterministic. */
  random: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
};

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter: a random wait in [0, min(max, initial * 2^retry)). */
export function backoffMs(retry: number, policy: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs' | 'random'>): number {
  const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return Math.floor(policy.random() * cap);
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Whether an answer may be retried, and after how long the service asked to wait. */
export type RetryVerdict = { retry: false } | { retry: true; retryAfterMs: number | undefined };

/**
 * Which answers are worth another attempt with the same request (and the same Idempotency-Key):
 * - 429, after the `Retry-After` it names;
 * - 409 for a duplicate whose first request is still in progress (the service says so with
 *   `Retry-After`, or in the message); a 409 for a key used with another body is final;
 * - 5xx, unless it is a stored answer replayed for this Idempotency-Key (a retry would replay it again).
 * Any other status is the answer.
 */
export function retryVerdict(status: number, headers: Headers, body: unknown): RetryVerdict {
  const retryAfter = parseRetryAfter(headers.get(RESPONSE_HEADERS.retryAfter));
  const retryAfterMs = retryAfter === undefined ? undefined : retryAfter * 1000;
  if (headers.get(RESPONSE_HEADERS.idempotentReplayed) === 'true') return { retry: false };
  if (status === 429 || status >= 500) return { retry: true, retryAfterMs };
  if (status === 409 && (retryAfter !== undefined || /in progress/i.test(errorMessage(body)))) return { retry: true, retryAfterMs };
  return { retry: false };
}

function errorMessage(body: unknown): string {
  if (typeof body !== 'object' || body === null || !('error' in body)) return '';
  const error = body.error;
  if (typeof error !== 'object' || error === null || !('message' in error)) return '';
  const message = error.message;
  return typeof message === 'string' ? message : '';
}
