import type { List, SupplierVendor } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import request from 'supertest';
import { expect } from 'vitest';
import { createCatalogueClient } from '../src/clients/catalogue-client.ts';
import { supplierOrderAuditPass } from '../src/workers/supplier-order-audit.ts';
import { startLiveInventory, type LiveHarness, type LiveOptions } from './live-vendors.ts';
import { INTERNAL_TOKEN, newCaller, operatorHeaders, type Caller } from './support.ts';

/** The vendor's window for a purchase in doubt, our timeout at the vendor, and a vendor slower than that (ms). */
export const WINDOW_MS = 3_000;
export const TIMEOUT_MS = 700;
export const SLOW_MS = 1_500;

/**
 * inventory and catalogue over `vendor`'s fake with that timeout and window (the money and top-up tests),
 * warmed by one order (catalogue, prices and token read once, so what a test's faults hit is the
 * purchase), with that order's price.
 */
export async function startMoneyHarness(
  vendor: SupplierVendor,
  inventoryEnv: Record<string, string> = {},
  options: LiveOptions = {},
): Promise<{ harness: LiveHarness; price: number }> {
  const harness = await startLiveInventory(
    vendor,
    { PURCHASE_IN_DOUBT_MS: String(WINDOW_MS), ...inventoryEnv },
    { ...options, catalogueEnv: { SUPPLIER_TIMEOUT_MS: String(TIMEOUT_MS), SUPPLIER_ORDER_SETTLE_MS: String(WINDOW_MS), ...options.catalogueEnv } },
  );
  const price = (await harness.buy(await harness.account(), 1)).price_cents;
  return { harness, price };
}

/** A fresh Idempotency-Key. */
export const idempotencyKey = () => `idem-${newId('request')}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The calls the live money and top-up tests make of a harness (`h()` is read at each call): as the gateway forwards them. */
export function liveCalls(h: () => LiveHarness) {
  const headersOf = (caller: Caller) => ({
    'x-internal-token': INTERNAL_TOKEN,
    'x-account-id': caller.accountId,
    'x-environment': caller.environment,
    'x-key-id': caller.keyId,
    'x-request-id': newId('request'),
  });
  const get = (caller: Caller, path: string) => request(h().app).get(path).set(headersOf(caller));
  return {
    headersOf,
    /** A verified live account with `cents` to spend. */
    fund: async (cents: number): Promise<Caller> => {
      const caller = newCaller('live');
      const res = await request(h().app)
        .put(`/internal/accounts/${caller.accountId}`)
        .set(operatorHeaders())
        .send({ verified: true, live_balance_cents: cents });
      expect(res.status).toBe(200);
      return caller;
    },
    get,
    topUp: (caller: Caller, esimId: string, bundle: string, key = idempotencyKey()) =>
      request(h().app).post(`/v1/esim/${esimId}/topups`).set(headersOf(caller)).set('Idempotency-Key', key).send({ bundle }),
    balanceOf: async (caller: Caller) => (await get(caller, '/v1/balance')).body as { available_cents: number; pending_cents: number },
    transactionsOf: async (caller: Caller) =>
      ((await get(caller, '/v1/balance_transactions')).body as List<{ type: string; amount_cents: number; source: string | null }>).data,
  };
}

const logger = createLogger({ name: 'live-calls', level: 'silent' });

/** One pass of the audit of the vendor's orders against ours (record 0161), over the last hour; a pass that cannot read them fails the test. */
export async function auditVendorOrders(h: LiveHarness): Promise<void> {
  const catalogue = createCatalogueClient({ baseUrl: h.catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 15_000, logger });
  await supplierOrderAuditPass({ knex: h.db.knex, catalogue, logger, lookbackMs: 3_600_000, minAgeMs: 1 })();
}
