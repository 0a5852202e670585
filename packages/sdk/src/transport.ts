import { REQUEST_HEADERS } from '@connectivity/contracts/public';
import type { ApiFetcherArgs } from '@ts-rest/core';
import { ConnectionError } from './errors.ts';
import { backoffMs, retryVerdict, type RetryPolicy } from './retry.ts';

/** Per-call options of the resource client (and of `raw` calls, as `requestOptions`). */
export interface RequestOptions {
  /** The Idempotency-Key of a mutating call; generated (uuid v4) when absent. Reused on every retry. */
  idempotencyKey?: string;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /** Overrides the client's `timeoutMs` (per attempt) for this call. */
  timeoutMs?: number;
  /** Aborts the call, including any wait between retries. */
  signal?: AbortSignal;
}

export interface TransportOptions {
  retry: RetryPolicy;
  /** Per attempt; a timeout counts as a network error and is retried. */
  timeoutMs: number;
  fetch: typeof fetch;
}

export type TransportArgs = ApiFetcherArgs & { requestOptions?: RequestOptions };
export type TransportResponse = { status: number; body: unknown; headers: Headers };
export type Transport = (args: TransportArgs) => Promise<TransportResponse>;

const IDEMPOTENCY_KEY = REQUEST_HEADERS.idempotencyKey.toLowerCase();

/** A version 4 UUID: 122 random bits, well inside the 8 to 128 characters the API accepts. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The ts-rest fetcher behind the resource client: sends the request, and on a network error or a
 * retryable answer (see `retryVerdict`) sends it again, after the `Retry-After` the service asked
 * for or an exponential backoff with full jitter, at most `maxRetries` times. A mutating request
 * carries one Idempotency-Key for all its attempts, so the service runs it at most once.
 */
export function createTransport(options: TransportOptions): Transport {
  return async (args) => {
    const call = args.requestOptions ?? {};
    const policy = options.retry;
    const maxRetries = call.maxRetries ?? policy.maxRetries;
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const callerSignal = call.signal ?? args.fetchOptions?.signal ?? undefined;
    const headers = { ...args.headers };
    if (args.method !== 'GET' && !headers[IDEMPOTENCY_KEY]) headers[IDEMPOTENCY_KEY] = call.idempotencyKey ?? newIdempotencyKey();

    for (let attempt = 0; ; attempt += 1) {
      const signal = callerSignal ? AbortSignal.any([callerSignal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
      let response: TransportResponse;
      try {
        response = await send(options.fetch, args, headers, signal);
      } catch (error) {
        if (callerSignal?.aborted) throw error;
        if (attempt >= maxRetries) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new ConnectionError(`No answer from ${args.method} ${args.path} after ${attempt + 1} attempt(s): ${reason}`, {
            cause: error,
            attempts: attempt + 1,
          });
        }
        await policy.sleep(backoffMs(attempt, policy), callerSignal);
        continue;
      }
      const verdict = retryVerdict(response.status, response.headers, response.body);
      if (!verdict.retry || attempt >= maxRetries) return response;
      if (verdict.retryAfterMs !== undefined && verdict.retryAfterMs > policy.maxRetryAfterMs) return response;
      await policy.sleep(verdict.retryAfterMs ?? backoffMs(attempt, policy), callerSignal);
    }
  };
}

/** A media type that is neither JSON nor text (an image such as `image/png`): its body is kept as bytes. */
export function isBinaryMediaType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type !== '' && !/\bjson$/.test(type) && !type.startsWith('text/') && !/[/+]xml$/.test(type);
}

/** One attempt; the body is read here so that a connection dropped mid-body is a network error too. */
async function send(fetchImpl: typeof fetch, args: ApiFetcherArgs, headers: Record<string, string>, signal: AbortSignal): Promise<TransportResponse> {
  const response = await fetchImpl(args.path, {
    ...args.fetchOptions,
    method: args.method,
    headers,
    body: args.body ?? null,
    signal,
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (isBinaryMediaType(contentType)) return { status: response.status, body: new Uint8Array(await response.arrayBuffer()), headers: response.headers };
  const text = await response.text();
  let body: unknown = text;
  if (/\bjson\b/i.test(contentType) && text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, body, headers: response.headers };
}
