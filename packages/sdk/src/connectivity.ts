import { errorFromResponse, UnexpectedResponseError } from './errors.ts';
import type { RequestOptions } from './transport.ts';
import {
  paginate,
  rawClientOf,
  segment,
  unwrap,
  writeHeaders,
  type ConnectivityOptions,
  type RawClient,
  type RequestBody,
  type RequestQuery,
  type Routes,
} from './resource-kit.ts';
import { BalanceResource, BalanceTransactionsResource, RefundsResource } from './money.ts';
import { TopupsResource } from './topups.ts';

export type { ConnectivityOptions, RawClient, RequestBody, RequestQuery } from './resource-kit.ts';
export type { RequestOptions };
export { BalanceResource, BalanceTransactionsResource, RefundsResource } from './money.ts';
export { TopupsResource } from './topups.ts';

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

  /**
   * Sets the simulated balance sandbox orders are paid from (`available_cents`; null switches it off)
   * and its low-balance threshold, to try `balance_insufficient` and `balance.low` without live money.
   */
  setBalance(body: RequestBody<Routes['balance']['setTestBalance']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.balance.setTestBalance({ body, headers: writeHeaders(options), requestOptions: options }));
  }

  /** Decides a pending sandbox refund now, as the simulated supplier's review would: `succeeded` or `failed`. */
  settleRefund(id: string, body: RequestBody<Routes['balance']['settleTestRefund']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.balance.settleTestRefund({ params: { id: segment(id) }, body, headers: writeHeaders(options), requestOptions: options }));
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
  readonly balance: BalanceResource;
  readonly balanceTransactions: BalanceTransactionsResource;
  readonly refunds: RefundsResource;
  readonly topups: TopupsResource;

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
    this.balance = new BalanceResource(this.raw);
    this.balanceTransactions = new BalanceTransactionsResource(this.raw);
    this.refunds = new RefundsResource(this.raw);
    this.topups = new TopupsResource(this.raw);
  }

  /** The version that answers this account, and the versions served. */
  version(options: RequestOptions = {}) {
    return unwrap(() => this.raw.meta.getVersion({ requestOptions: options }));
  }
}

export function createConnectivity(options: ConnectivityOptions): Connectivity {
  return new Connectivity(options);
}
