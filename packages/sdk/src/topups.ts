import type { RequestOptions } from './transport.ts';
import { paginate, segment, unwrap, writeHeaders, type RawClient, type RequestBody, type RequestQuery, type Routes } from './resource-kit.ts';

/**
 * Top-ups of an eSIM: the bundles that can be added to it, adding one (the same eSIM and activation
 * code, more data, a later `expires_at`; an eSIM expired by `data_exhausted` or `validity_ended` is
 * revived), and the bundles on it with their states. `esim.topped_up` announces each top-up.
 */
export class TopupsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** The bundles that can top `esim` (an id or ICCID) up, by name. Await for one page, or `for await` over every offer. */
  offers(esim: string, query: RequestQuery<Routes['topups']['listEsimTopupOffers']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.topups.listEsimTopupOffers({ params: { id: segment(esim) }, query: q, requestOptions: options }));
  }

  /**
   * Adds `bundle` to the eSIM; returns the top-up. A cancelled eSIM throws a `ConflictError`
   * (`invalid_state_transition`); a bundle that is not one of its offers an `InvalidRequestError`
   * (`param: "bundle"`). Pass `idempotencyKey` to make the purchase safe to repeat across processes.
   */
  create(esim: string, body: RequestBody<Routes['topups']['createEsimTopup']>, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.topups.createEsimTopup({ params: { id: segment(esim) }, body, headers: writeHeaders(options), requestOptions: options }));
  }

  /** The bundles on the eSIM in the order they are used, each `queued`, `active`, `depleted` or `expired`. */
  bundles(esim: string, query: RequestQuery<Routes['topups']['listEsimBundles']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.topups.listEsimBundles({ params: { id: segment(esim) }, query: q, requestOptions: options }));
  }
}
