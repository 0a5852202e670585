import { contract, REQUEST_HEADERS } from '@connectivity/contracts/public';
import type { Contract } from '@connectivity/contracts/public';
import { initClient } from '@ts-rest/core';
import type { AppRoute, ClientInferRequest, InitClientReturn, SuccessfulHttpStatusCode } from '@ts-rest/core';
import type { BaseHeaders, ClientOptions } from './client.ts';
import { errorFromResponse, UnexpectedResponseError } from './errors.ts';
import { ListPromise } from './pagination.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
import { createTransport, newIdempotencyKey, type RequestOptions, type Transport, type TransportResponse } from './transport.ts';

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

export type { RequestOptions };

/** The typed ts-rest client of the whole contract, on the retrying transport: calls resolve to `{ status, body, headers }`. */
export type RawClient = InitClientReturn<Contract, { baseUrl: string; baseHeaders: BaseHeaders; api: Transport; throwOnUnknownStatus: false }>;

function rawClientOf(options: ConnectivityOptions): RawClient {
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
type Success<U> = U extends { status: SuccessfulHttpStatusCode; body: infer B } ? B : never;
type ItemOf<U> = Success<U> extends { data: (infer T)[] } ? T : never;
/** The request body and query of a contract route, as a caller writes them (defaults optional). */
export type RequestBody<R extends AppRoute> = ClientInferRequest<R> extends { body: infer B } ? B : never;
export type RequestQuery<R extends AppRoute> = ClientInferRequest<R> extends { query: infer Q } ? Q : never;
type Routes = Contract;

/** Resolves to the success body, or throws the typed error of any other answer. */
async function unwrap<U extends TransportResponse>(call: () => Promise<U>): Promise<Success<U>> {
  const response = await call();
  if (response.status < 200 || response.status > 299) throw errorFromResponse(response);
  if (typeof response.body !== 'object' || response.body === null) throw new UnexpectedResponseError(response);
  return response.body as Success<U>;
}

function paginate<Q extends { cursor?: string | undefined }, U extends TransportResponse>(
  query: Q,
  fetchPage: (query: Q) => Promise<U>,
): ListPromise<ItemOf<U>> {
  return new ListPromise(async (cursor) => {
    const page = await unwrap(() => fetchPage(cursor === undefined ? query : { ...query, cursor }));
    return page as Success<U> & { data: ItemOf<U>[]; has_more: boolean; next_cursor: string | null; object: 'list' };
  });
}

/** A path segment: the id as given, percent-encoded, so it can only ever name one resource. */
function segment(id: string): string {
  if (typeof id !== 'string' || id === '') throw new TypeError('An id is required (a non-empty string).');
  return encodeURIComponent(id);
}

function writeHeaders(options: RequestOptions) {
  return { [REQUEST_HEADERS.idempotencyKey.toLowerCase()]: options.idempotencyKey ?? newIdempotencyKey() } as { 'idempotency-key': string };
}

/** eSIMs: buy (an order of 1 to 10), list (filtered by metadata if wanted), read by id or ICCID, change state or metadata, QR code. */
export class EsimsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** Buys `quantity` eSIMs of `bundle`; returns the order with its eSIMs. Pass `idempotencyKey` to make the purchase safe to repeat across processes. */
  create(body: RequestBody<Routes['esim']['createEsim']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.esim.createEsim({ body, headers: writeHeaders(options), requestOptions: options }));
  }

  /** Newest first. Await for one page, or `for await` over every eSIM. */
  list(query: RequestQuery<Routes['esim']['listEsims']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.esim.listEsims({ query: q, requestOptions: options }));
  }

  /** By eSIM id (`esim_...`) or ICCID. */
  retrieve(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.esim.getEsim({ params: { id: segment(id) }, requestOptions: options }));
  }

  /**
   * Moves the eSIM to `state` and/or merges `metadata` into its metadata (a key set to `""` is removed); a move
   * the life cycle forbids throws a `ConflictError` (`invalid_state_transition`).
   */
  update(id: string, body: RequestBody<Routes['esim']['updateEsim']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.esim.updateEsim({ params: { id: segment(id) }, body, headers: writeHeaders(options), requestOptions: options }));
  }

  /**
   * The eSIM's activation code as a QR code to scan on a handset: the PNG's bytes by default, or the SVG
   * document's text with `format: 'svg'`. An eSIM without an activation code throws a `NotFoundError`.
   */
  qrCode(id: string, options: QrCodeOptions & { format: 'svg' }): Promise<string>;
  qrCode(id: string, options?: QrCodeOptions & { format?: 'png' }): Promise<Uint8Array>;
  async qrCode(id: string, options: QrCodeOptions = {}): Promise<Uint8Array | string> {
    const { format = 'png', ...requestOptions } = options;
    const mediaType = QR_CODE_FORMATS[format];
    const response = await this.#raw.esim.getEsimQrCode({ params: { id: segment(id) }, extraHeaders: { accept: mediaType }, requestOptions });
    if (response.status < 200 || response.status > 299) throw errorFromResponse(response);
    const contentType = response.headers.get('content-type') ?? '';
    const body: unknown = response.body;
    const expected = format === 'svg' ? typeof body === 'string' : body instanceof Uint8Array;
    if (!contentType.toLowerCase().startsWith(mediaType) || !expected) throw new UnexpectedResponseError(response);
    return body as Uint8Array | string;
  }
}

/** The image formats of `esims.qrCode`, and the media type each asks for. */
const QR_CODE_FORMATS = { png: 'image/png', svg: 'image/svg+xml' } as const;

export interface QrCodeOptions extends RequestOptions {
  /** `png` (the default) resolves to the image's bytes, `svg` to the SVG document as text. */
  format?: keyof typeof QR_CODE_FORMATS;
}

/** The bundle catalogue, ordered by name. */
export class BundlesResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['catalogue']['listBundles']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.catalogue.listBundles({ query: q, requestOptions: options }));
  }
}

/** The event log (newest first) and its replay to the webhook endpoints. */
export class EventsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['events']['listEvents']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.events.listEvents({ query: q, requestOptions: options }));
  }

  /** Queues past events for delivery again: `since` (Unix seconds), one `event`, or the last 24 hours. */
  replay(body: RequestBody<Routes['events']['replayEvents']> = {}, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.events.replayEvents({ body, headers: writeHeaders(options), requestOptions: options }));
  }
}

/** Webhook endpoints of the key's environment and their delivery attempts. */
export class WebhooksResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** The answer carries the signing `secret` (`whsec_...`); it is never shown again. */
  create(body: RequestBody<Routes['webhooks']['createWebhook']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.webhooks.createWebhook({ body, headers: writeHeaders(options), requestOptions: options }));
  }

  list(query: RequestQuery<Routes['webhooks']['listWebhooks']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.webhooks.listWebhooks({ query: q, requestOptions: options }));
  }

  retrieve(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.webhooks.getWebhook({ params: { id: segment(id) }, requestOptions: options }));
  }

  update(id: string, body: RequestBody<Routes['webhooks']['updateWebhook']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.webhooks.updateWebhook({ params: { id: segment(id) }, body, headers: writeHeaders(options), requestOptions: options }));
  }

  delete(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.webhooks.deleteWebhook({ params: { id: segment(id) }, headers: writeHeaders(options), requestOptions: options }));
  }

  /** The delivery attempts to endpoint `id`, newest first. */
  deliveries(id: string, query: RequestQuery<Routes['webhooks']['listWebhookDeliveries']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.webhooks.listWebhookDeliveries({ params: { id: segment(id) }, query: q, requestOptions: options }));
  }
}

/** API keys of the account (issued and revoked by the operator; never with their secret). */
export class ApiKeysResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['apiKeys']['listApiKeys']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.apiKeys.listApiKeys({ query: q, requestOptions: options }));
  }
}

/** The account's recent requests in the key's environment, newest first (the last 1,000 of 24 hours). */
export class RequestLogsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['requestLogs']['listRequestLogs']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.requestLogs.listRequestLogs({ query: q, requestOptions: options }));
  }
}

/** The catalogue of event types, each with the JSON Schema of its `data`. */
export class EventTypesResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['meta']['listEventTypes']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.meta.listEventTypes({ query: q, requestOptions: options }));
  }
}

/** The catalogue of error codes: type, status and meaning of each. */
export class ErrorCodesResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  list(query: RequestQuery<Routes['meta']['listErrorCodes']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.meta.listErrorCodes({ query: q, requestOptions: options }));
  }

  retrieve(code: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.meta.getErrorCode({ params: { code: segment(code) }, requestOptions: options }));
  }
}

/** Sandbox helpers (test keys only). */
export class TestHelpersResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** Uses `bytes` of data on a simulated eSIM; returns the eSIM after the usage. */
  usage(body: RequestBody<Routes['test']['simulateUsage']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.test.simulateUsage({ body, headers: writeHeaders(options), requestOptions: options }));
  }

  /**
   * Always throws: the typed error of `code`, as the API answers it. Not retried unless
   * `maxRetries` is given: the answer is the chosen error by design.
   */
  error(body: RequestBody<Routes['test']['triggerTestError']>, options: RequestOptions = {}) {
    const call = { maxRetries: 0, ...options };
    return unwrap(() => this.#raw.test.triggerTestError({ body, headers: writeHeaders(call), requestOptions: call }));
  }
}

/**
 * Test clocks (test keys only): eSIMs bought with `test_clock` live in the clock's time, and
 * `advance` moves it on, expiring the eSIMs whose validity it passes before it resolves.
 */
export class TestClocksResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** A clock frozen at `frozen_time` (Unix seconds; default now). */
  create(body: RequestBody<Routes['testClocks']['createTestClock']> = {}, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.testClocks.createTestClock({ body, headers: writeHeaders(options), requestOptions: options }));
  }

  /** Newest first. Await for one page, or `for await` over every clock. */
  list(query: RequestQuery<Routes['testClocks']['listTestClocks']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.testClocks.listTestClocks({ query: q, requestOptions: options }));
  }

  retrieve(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.testClocks.getTestClock({ params: { id: segment(id) }, requestOptions: options }));
  }

  /** Deletes the clock; its eSIMs stay, frozen at its last time. */
  delete(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.testClocks.deleteTestClock({ params: { id: segment(id) }, headers: writeHeaders(options), requestOptions: options }));
  }

  /** Moves the clock to `frozen_time` (later than its current time); resolves once its eSIMs have caught up. */
  advance(id: string, body: RequestBody<Routes['testClocks']['advanceTestClock']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.testClocks.advanceTestClock({ params: { id: segment(id) }, body, headers: writeHeaders(options), requestOptions: options }));
  }
}

/**
 * The resource client: methods resolve to the typed body of the answer and throw a typed
 * `ConnectivityError` otherwise; lists page themselves; failed calls are retried safely (one
 * Idempotency-Key per call, for all its attempts). Every type comes from the API contract.
 *
 * ```ts
 * const connectivity = new Connectivity({ apiKey: 'sk_test_...', baseUrl: 'http://localhost:8080' });
 * const order = await connectivity.esims.create({ bundle: 'esim_5GB_30D_EU', quantity: 2 });
 * for await (const esim of connectivity.esims.list({ limit: 100 })) console.log(esim.iccid);
 * ```
 */
export class Connectivity {
  /** The typed ts-rest client of every route, on the same retrying transport. */
  readonly raw: RawClient;
  readonly esims: EsimsResource;
  readonly bundles: BundlesResource;
  readonly events: EventsResource;
  readonly webhooks: WebhooksResource;
  readonly apiKeys: ApiKeysResource;
  readonly requestLogs: RequestLogsResource;
  readonly eventTypes: EventTypesResource;
  readonly errorCodes: ErrorCodesResource;
  readonly testHelpers: TestHelpersResource;
  readonly testClocks: TestClocksResource;

  constructor(options: ConnectivityOptions) {
    if (!options.apiKey) throw new TypeError('An apiKey is required (sk_test_... or sk_live_...).');
    if (!options.baseUrl) throw new TypeError('A baseUrl is required, e.g. http://localhost:8080.');
    this.raw = rawClientOf(options);
    this.esims = new EsimsResource(this.raw);
    this.bundles = new BundlesResource(this.raw);
    this.events = new EventsResource(this.raw);
    this.webhooks = new WebhooksResource(this.raw);
    this.apiKeys = new ApiKeysResource(this.raw);
    this.requestLogs = new RequestLogsResource(this.raw);
    this.eventTypes = new EventTypesResource(this.raw);
    this.errorCodes = new ErrorCodesResource(this.raw);
    this.testHelpers = new TestHelpersResource(this.raw);
    this.testClocks = new TestClocksResource(this.raw);
  }

  /** The version that answers this account, and the versions served. */
  version(options: RequestOptions = {}) {
    return unwrap(() => this.raw.meta.getVersion({ requestOptions: options }));
  }
}

export function createConnectivity(options: ConnectivityOptions): Connectivity {
  return new Connectivity(options);
}
