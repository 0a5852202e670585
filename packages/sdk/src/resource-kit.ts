import { contract, REQUEST_HEADERS } from '@connectivity/contracts/public';
import type { Contract } from '@connectivity/contracts/public';
import { initClient } from '@ts-rest/core';
import type { AppRoute, ClientInferRequest, InitClientReturn, SuccessfulHttpStatusCode } from '@ts-rest/core';
import type { BaseHeaders, ClientOptions } from './client.ts';
import { errorFromResponse, UnexpectedResponseError } from './errors.ts';
import { ListPromise } from './pagination.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
import { createTransport, newIdempotencyKey, type RequestOptions, type Transport, type TransportResponse } from './transport.ts';

// What every resource of the client is made of: the raw typed client, and the helpers that turn its
// answers into bodies or typed errors, page lists, and give each call its Idempotency-Key.

export interface ConnectivityOptions extends ClientOptions {
  /** Retries of a failed call (network error, 429, 5xx, 409 in progress); default 2. 0 turns retrying off. */
  maxRetries?: number;
  /** Time allowed to each attempt, in milliseconds; default 60 000. */
  timeoutMs?: number;
  /** Backoff of the first retry (randomised, doubling each time up to `maxRetryDelayMs`); default 500. */
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for; the error is thrown instead. Default 60 000. */
  maxRetryAfterMs?: number;
  /** The fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Injectable for tests: how the client waits between attempts, and its source of jitter. */
  sleep?: RetryPolicy['sleep'];
  random?: RetryPolicy['random'];
}

/** The typed ts-rest client of the whole contract, on the retrying transport: calls resolve to `{ status, body, headers }`. */
export type RawClient = InitClientReturn<Contract, { baseUrl: string; baseHeaders: BaseHeaders; api: Transport; throwOnUnknownStatus: false }>;

export function rawClientOf(options: ConnectivityOptions): RawClient {
  const transport = createTransport({
    retry: {
      maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries,
      initialDelayMs: options.initialRetryDelayMs ?? DEFAULT_RETRY.initialDelayMs,
      maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs,
      sleep: options.sleep ?? DEFAULT_RETRY.sleep,
      random: options.random ?? DEFAULT_RETRY.random,
    },
    timeoutMs: options.timeoutMs ?? 60_000,
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
  });
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {
      authorization: `Bearer ${options.apiKey}`,
      ...(options.serviceVersion ? { 'service-version': options.serviceVersion } : {}),
    },
    api: transport,
    throwOnUnknownStatus: false,
  });
}

/** The body of a route's 2xx answer, as the contract types it. */
export type Success<U> = U extends { status: SuccessfulHttpStatusCode; body: infer B } ? B : never;
export type ItemOf<U> = Success<U> extends { data: (infer T)[] } ? T : never;
/** The request body and query of a contract route, as a caller writes them (defaults optional). */
export type RequestBody<R extends AppRoute> = ClientInferRequest<R> extends { body: infer B } ? B : never;
export type RequestQuery<R extends AppRoute> = ClientInferRequest<R> extends { query: infer Q } ? Q : never;
export type Routes = Contract;

/** Resolves to the success body, or throws the typed error of any other answer. */
export async function unwrap<U extends TransportResponse>(call: () => Promise<U>): Promise<Success<U>> {
  const response = await call();
  if (response.status < 200 || response.status > 299) throw errorFromResponse(response);
  if (typeof response.body !== 'object' || response.body === null) throw new UnexpectedResponseError(response);
  return response.body as Success<U>;
}

export function paginate<Q extends { cursor?: string | undefined }, U extends TransportResponse>(
  query: Q,
  fetchPage: (query: Q) => Promise<U>,
): ListPromise<ItemOf<U>> {
  return new ListPromise(async (cursor) => {
    const page = await unwrap(() => fetchPage(cursor === undefined ? query : { ...query, cursor }));
    return page as Success<U> & { data: ItemOf<U>[]; has_more: boolean; next_cursor: string | null; object: 'list' };
  });
}

/** A path segment: the id as given, percent-encoded, so it can only ever name one resource. */
export function segment(id: string): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('An id is required (a non-empty string).');
  return encodeURIComponent(id);
}

export function writeHeaders(options: RequestOptions) {
  return { [REQUEST_HEADERS.idempotencyKey.toLowerCase()]: options.idempotencyKey ?? newIdempotencyKey() } as { 'idempotency-key': string };
}
