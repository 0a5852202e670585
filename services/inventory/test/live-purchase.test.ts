import { SUPPLIER_VENDORS, type Order } from '@connectivity/contracts';
import { idempotencyOwner, newId } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveInventory, VENDOR_BUNDLES, type LiveHarness } from './live-vendors.ts';
import { eventually, type Caller } from './support.ts';
import { failNextOrderWrite, settleAbandonedIntents } from './unrecorded-purchase.ts';

/**
 * Exactly one purchase per live order across crashes (record 0152): the intent is committed before
 * the vendor is asked; a retry of the same request asks the vendor what it did before buying; a
 * purchase nobody retries is released. The crash is a database fault that fails the order's write
 * once, after the vendor answered: the attempt dies without recording, as a kill -9 there would.
 */
/**
 * The same request again, as a retrying client sends it: while the first attempt's claim is still
 * being given back (409 in progress, with Retry-After), it waits and sends again.
 */
async function retryOrder(h: LiveHarness, caller: Caller, body: object, key: string) {
  for (let attempt = 0; ; attempt += 1) {
    const res = await h.order(caller, body, key);
    if (res.status !== 409 || res.body.error?.code !== 'idempotency_key_reused' || attempt >= 50) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ordersOf = async (h: LiveHarness, accountId: string) => (await h.db.knex('inventory.orders').where({ account_id: accountId })) as { id: string }[];
const intentsOf = async (h: LiveHarness, accountId: string) =>
  (await h.db.knex('inventory.purchase_intents').where({ account_id: accountId })) as {
    order_id: string;
    state: string;
    key_id: string;
    idempotency_key: string;
  }[];
const releasesOf = async (h: LiveHarness, accountId: string) =>
  (await h.db.knex('inventory.supplier_releases').where({ account_id: accountId })) as { order_reference: string; iccids: string[]; status: string }[];

const IN_DOUBT_MS = 1_000;

describe.each(SUPPLIER_VENDORS)('a live order at %s', (vendor) => {
  let h: LiveHarness;
  let caller: Caller;
  beforeAll(async () => {
    // The vendor's window for an order in doubt, in milliseconds rather than minutes.
    h = await startLiveInventory(vendor, { PURCHASE_IN_DOUBT_MS: String(IN_DOUBT_MS) }, { catalogueEnv: { SUPPLIER_ORDER_SETTLE_MS: String(IN_DOUBT_MS) } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('that crashed after the vendor answered is recorded once by its retry, and nothing is bought again', async () => {
    caller = await h.account();
    await failNextOrderWrite(h.db, caller.accountId);
    const purchasesBefore = h.fake.control.counters().purchases;
    const key = `idem-${newId('request')}`;
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 2 };

    const crashed = await h.order(caller, body, key);
    expect(crashed.status).toBe(500);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    expect(await ordersOf(h, caller.accountId)).toEqual([]);
    const [pending] = await intentsOf(h, caller.accountId);
    // Keyed on the request's owner, the account and environment (record 0200), so a rotated key's retry finds it.
    expect(pending).toMatchObject({ state: 'pending', key_id: idempotencyOwner(caller.accountId, caller.environment), idempotency_key: key });

    const retried = await retryOrder(h, caller, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const order = retried.body as Order;
    expect(order.id).toBe(pending?.order_id);
    expect(order.esims).toHaveLength(2);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    expect(await ordersOf(h, caller.accountId)).toHaveLength(1);
    expect(await intentsOf(h, caller.accountId)).toMatchObject([{ state: 'recorded' }]);
    expect(await releasesOf(h, caller.accountId)).toEqual([]);

    // A third try is the stored answer: the same order, nothing bought.
    const replayed = await retryOrder(h, caller, body, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect((replayed.body as Order).id).toBe(order.id);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
  });

  it('whose purchase answer was a 5xx is in doubt: the retry waits, and buys under the same reference once the vendor’s window passed with nothing made', async () => {
    const account = await h.account();
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 1 };
    // Warm: catalogue, prices and token are read before the fault, so the purchase call is the one it hits.
    await h.buy(account, 1);
    const purchasesBefore = h.fake.control.counters().purchases;
    await h.fake.control.fault(vendor === 'esim-go' ? { kind: 'processing', completeAfterMs: -1, count: 1 } : { kind: 'status', status: 503, count: 1 });
    const key = `idem-${newId('request')}`;
    const doubtful = await h.order(account, body, key);
    expect(doubtful.status).toBe(503);
    expect(doubtful.body.error.code).toBe('supplier_unavailable');
    expect(Number(doubtful.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await h.fake.control.clearFaults();
    // At once: the vendor has not said, and nothing is bought again.
    const waiting = await h.order(account, body, key);
    expect(waiting.status).toBe(503);
    expect(waiting.body.error.code).toBe('supplier_unavailable');
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore);
    // Past the window, with nothing made: bought once, under the intent's reference.
    await new Promise((resolve) => setTimeout(resolve, IN_DOUBT_MS + 300));
    const retried = await retryOrder(h, account, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    const intents = await intentsOf(h, account.accountId);
    expect(intents.filter((i) => i.state === 'recorded').map((i) => i.order_id)).toContain((retried.body as Order).id);
    expect(intents.filter((i) => i.idempotency_key === key)).toMatchObject([{ state: 'recorded', order_id: (retried.body as Order).id }]);
  });

  it('that crashed and was never retried is found at the vendor and handed to the supplier-release work', async () => {
    const account = await h.account();
    await failNextOrderWrite(h.db, account.accountId);
    const key = `idem-${newId('request')}`;
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 1 };
    expect((await h.order(account, body, key)).status).toBe(500);
    const [intent] = await intentsOf(h, account.accountId);
    // As the worker finds it once its check time has come.
    expect(await settleAbandonedIntents(h.db, h.catalogueUrl, account.accountId)).toBe(1);
    expect(await intentsOf(h, account.accountId)).toMatchObject([{ state: 'released' }]);
    const [release] = await releasesOf(h, account.accountId);
    expect(release).toMatchObject({ order_reference: intent?.order_id, reason: 'order_not_recorded' });
    expect(release?.iccids).toHaveLength(1);
    // The release work then ends it at the vendor (or gives up where the vendor cannot, for the operator).
    await eventually(async () => expect((await releasesOf(h, account.accountId))[0]?.status).not.toBe('pending'), 15_000);

    // A retry after that buys afresh under a new reference, and records it once.
    const purchasesBefore = h.fake.control.counters().purchases;
    const retried = await retryOrder(h, account, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect((retried.body as Order).id).not.toBe(intent?.order_id);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    expect(await ordersOf(h, account.accountId)).toHaveLength(1);
  });
});
