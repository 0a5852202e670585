import { SUPPLIER_VENDORS, type Order } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPurchaseIntentWorker } from '../src/workers/purchase-intent-worker.ts';
import { createCatalogueClient } from '../src/clients/catalogue-client.ts';
import { startLiveInventory, VENDOR_BUNDLES, type LiveHarness } from './live-vendors.ts';
import { eventually, INTERNAL_TOKEN, type Caller } from './support.ts';

/**
 * Exactly one purchase per live order across crashes (record 0152): the intent is committed before
 * the vendor is asked; a retry of the same request asks the vendor what it did before buying; a
 * purchase nobody retries is released. The crash is a database fault that fails the order's write
 * once, after the vendor answered: the attempt dies without recording, as a kill -9 there would.
 */
const logger = createLogger({ name: 'live-purchase-test', level: 'silent' });

/** Makes the next order written for `accountId` fail in the database, once. */
async function failNextOrderWrite(h: LiveHarness, accountId: string): Promise<void> {
  const knex = h.db.knex;
  await knex.raw('create table if not exists public.fail_order_writes (account_id text primary key, seq text not null)');
  // A sequence advances even in a transaction that rolls back: the fault fires once.
  const seq = `fail_${newId('request').slice(4).toLowerCase()}`;
  await knex.raw(`create sequence public.${seq}`);
  await knex('public.fail_order_writes').insert({ account_id: accountId, seq });
  await knex.raw(`
    create or replace function public.fail_order_write_once() returns trigger language plpgsql as $$
    declare s text;
    begin
      select seq into s from public.fail_order_writes where account_id = new.account_id;
      if s is not null and nextval('public.' || s) = 1 then
        raise exception 'simulated crash between the supplier''s answer and our commit';
      end if;
      return new;
    end $$`);
  await knex.raw('drop trigger if exists fail_order_write_once on inventory.orders');
  await knex.raw('create trigger fail_order_write_once before insert on inventory.orders for each row execute function public.fail_order_write_once()');
}

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

describe.each(SUPPLIER_VENDORS)('a live order at %s', (vendor) => {
  let h: LiveHarness;
  let caller: Caller;
  beforeAll(async () => {
    h = await startLiveInventory(vendor);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('that crashed after the vendor answered is recorded once by its retry, and nothing is bought again', async () => {
    caller = await h.account();
    await failNextOrderWrite(h, caller.accountId);
    const purchasesBefore = h.fake.control.counters().purchases;
    const key = `idem-${newId('request')}`;
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 2 };

    const crashed = await h.order(caller, body, key);
    expect(crashed.status).toBe(500);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    expect(await ordersOf(h, caller.accountId)).toEqual([]);
    const [pending] = await intentsOf(h, caller.accountId);
    expect(pending).toMatchObject({ state: 'pending', key_id: caller.keyId, idempotency_key: key });

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

  it('that the vendor refused is bought by its retry under the same reference (the vendor made nothing)', async () => {
    const account = await h.account();
    const purchasesBefore = h.fake.control.counters().purchases;
    await h.fake.control.fault({ kind: 'status', status: 503, count: 1 });
    const key = `idem-${newId('request')}`;
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 1 };
    const refused = await h.order(account, body, key);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('supplier_refused');
    await h.fake.control.clearFaults();
    const retried = await retryOrder(h, account, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(h.fake.control.counters().purchases).toBe(purchasesBefore + 1);
    expect(await intentsOf(h, account.accountId)).toMatchObject([{ state: 'recorded', order_id: (retried.body as Order).id }]);
  });

  it('that crashed and was never retried is found at the vendor and handed to the supplier-release work', async () => {
    const account = await h.account();
    await failNextOrderWrite(h, account.accountId);
    const key = `idem-${newId('request')}`;
    const body = { bundle: VENDOR_BUNDLES[vendor], quantity: 1 };
    expect((await h.order(account, body, key)).status).toBe(500);
    const [intent] = await intentsOf(h, account.accountId);
    // As the worker finds it once its check time has come.
    await h.db
      .knex('inventory.purchase_intents')
      .where({ order_id: intent?.order_id })
      .update({ next_check_at: Date.now() - 1 });
    const catalogue = createCatalogueClient({ baseUrl: h.catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 5_000, logger });
    const worker = startPurchaseIntentWorker({ knex: h.db.knex, catalogue, logger, intervalMs: 3_600_000, leaseMs: 60_000 });
    try {
      expect(await worker.runOnce()).toBe(1);
    } finally {
      await worker.stop();
    }
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
