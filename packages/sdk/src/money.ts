import type { RequestOptions } from './transport.ts';
import { paginate, segment, unwrap, type RawClient, type RequestQuery, type Routes } from './resource-kit.ts';

/**
 * The balance of the key's environment: live, the prepaid balance live orders are paid from (an
 * order holds its price before the supplier is asked); test, the simulated balance set with
 * `testHelpers.setBalance` (`available_cents` null while none is set).
 */
export class BalanceResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  retrieve(options: RequestOptions = {}) {
    return unwrap(() => this.#raw.balance.getBalance({ requestOptions: options }));
  }
}

/** Every movement of the balance, newest first: orders and their releases, refunds, credits, adjustments. Filter by `type` or `source`. */
export class BalanceTransactionsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** Await for one page, or `for await` over every transaction. */
  list(query: RequestQuery<Routes['balance']['listBalanceTransactions']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.balance.listBalanceTransactions({ query: q, requestOptions: options }));
  }
}

/**
 * Refunds of cancelled unused eSIMs: `pending` until the supplier has refunded us, then `succeeded`
 * (the balance is credited) or `failed` (`failure_reason` says why). `refund.*` events announce each move.
 */
export class RefundsResource {
  readonly #raw: RawClient;
  constructor(raw: RawClient) {
    this.#raw = raw;
  }

  /** Newest first; filter by `esim` or `status`. Await for one page, or `for await` over every refund. */
  list(query: RequestQuery<Routes['balance']['listRefunds']> = {}, options: RequestOptions = {}) {
    return paginate(query, (q) => this.#raw.balance.listRefunds({ query: q, requestOptions: options }));
  }

  retrieve(id: string, options: RequestOptions = {}) {
    return unwrap(() => this.#raw.balance.getRefund({ params: { id: segment(id) }, requestOptions: options }));
  }
}
