import type { List } from '@connectivity/contracts';
import { createLogger, newId } from '@connectivity/platform';
import request from 'supertest';
import { expect } from 'vitest';
import { createCatalogueClient } from '../src/clients/catalogue-client.ts';
import { startSupplierOrderAudit } from '../src/workers/supplier-order-audit.ts';
import type { LiveHarness } from './live-vendors.ts';
import { INTERNAL_TOKEN, newCaller, operatorHeaders, type Caller } from './support.ts';

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

/** One pass of the audit of the vendor's orders against ours (record 0161), over the last hour. */
export async function auditVendorOrders(h: LiveHarness): Promise<void> {
  const catalogue = createCatalogueClient({ baseUrl: h.catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 5_000, logger });
  const audit = startSupplierOrderAudit({ knex: h.db.knex, catalogue, logger, intervalMs: 3_600_000, lookbackMs: 3_600_000, minAgeMs: 1 });
  try {
    await audit.runOnce();
  } finally {
    await audit.stop();
  }
}
