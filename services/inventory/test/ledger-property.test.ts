import { ApiError, type InternalBundle, type PurchaseOutcome, type SuppliedProfile } from '@connectivity/contracts';
import { createLogger, NO_CLAIM, newId, runMigrations, type Caller, type Database } from '@connectivity/platform';
import { createTestDatabase } from '@connectivity/platform/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueClient } from '../src/clients/catalogue-client.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { returnHold } from '../src/db/purchase-settlement.ts';
import { openRefund } from '../src/db/refund-ledger.ts';
import { findEsim } from '../src/db/esim-repository.ts';
import { creditAccount } from '../src/use-cases/credit-account.ts';
import { placeOrder } from '../src/use-cases/place-order.ts';
import { putAccountSettings } from '../src/use-cases/put-account-settings.ts';
import { settleRefund } from '../src/use-cases/settle-refund.ts';

/**
 * The ledger's promise (record 0156), under random concurrent work on the real database: orders whose
 * purchase is bought, refused, in doubt or priced above the charge; in-doubt purchases given up;
 * refunds opened and settled either way; credits; the operator setting the balance. After every step
 * the transactions add up to the balance in the order they were made, no balance after any of them is
 * negative, and what is held is exactly the holds of the purchases still in flight.
 */
const logger = createLogger({ name: 'ledger-property', level: 'silent' });
const BUNDLE: InternalBundle = {
  object: 'bundle',
  name: 'esim_1GB_7D_GB_V2',
  description: '1 GB for 7 days in the United Kingdom',
  data_mb: 1_000,
  unlimited: false,
  duration_days: 7,
  countries: ['GB'],
  price_cents: 299,
  currency: 'USD',
  simulated: false,
  rated: true,
  retired: false,
  environments: ['live'],
  validity_start: 'first_use',
  install_window_days: null,
  data_limit_bytes: 1_000_000_000,
};

type Outcome = 'bought' | 'refused' | 'in_doubt' | 'price_changed';
type Step =
  | { kind: 'order'; quantity: number; outcome: Outcome }
  | { kind: 'give_up' }
  | { kind: 'refund'; refunded: boolean }
  | { kind: 'settle'; status: 'succeeded' | 'failed' }
  | { kind: 'credit'; cents: number }
  | { kind: 'set'; cents: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      quantity: fc.integer({ min: 1, max: 3 }),
      outcome: fc.constantFrom<Outcome>('bought', 'bought', 'refused', 'in_doubt', 'price_changed'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'give_up' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), refunded: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('settle' as const), status: fc.constantFrom('succeeded' as const, 'failed' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('credit' as const), cents: fc.integer({ min: 1, max: 2_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('set' as const), cents: fc.integer({ min: 0, max: 3_000 }) }) },
);

const iccid = () => `89882${Array.from({ length: 14 }, () => Math.floor(Math.random() * 10)).join('')}`;

/** catalogue as the ledger sees it: the bundle, and a purchase whose outcome the step chose. */
function catalogueFor(outcome: Outcome): CatalogueClient {
  const unused = () => Promise.reject(new Error('not used'));
  return {
    getBundle: () => Promise.resolve(BUNDLE),
    orderProfiles: unused,
    purchase: (_caller, input): Promise<PurchaseOutcome> => {
      const profiles: SuppliedProfile[] = Array.from({ length: input.quantity }, () => ({
        iccid: iccid(),
        smdp_address: 'rsp.example',
        matching_id: newId('request'),
      }));
      switch (outcome) {
        case 'refused':
          return Promise.reject(new ApiError('supplier_refused'));
        case 'in_doubt':
          return Promise.resolve({ outcome: 'in_doubt', retry_after_seconds: 1, settles_within_seconds: 600, vendor_request_id: null });
        case 'price_changed':
          return Promise.resolve({ outcome: 'bought', profiles, retail_price_cents: input.price_cents + 100 });
        default:
          return Promise.resolve({ outcome: 'bought', profiles, retail_price_cents: input.price_cents });
      }
    },
    findOrder: () => Promise.resolve(null),
    profileAction: unused,
    terminate: unused,
    refundStatus: unused,
    vendorOrders: unused,
    profileReport: unused,
  };
}

describe('the ledger under random concurrent work', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
    await runMigrations(db.knex, migrations);
  });
  afterAll(async () => {
    await db?.close();
  });

  async function expectInvariants(accountId: string): Promise<void> {
    const knex = db.knex;
    const balance = (await knex('inventory.balances').where({ account_id: accountId, environment: 'live' }).first()) as
      { available_cents: string; pending_cents: string } | undefined;
    const transactions = (await knex('inventory.balance_transactions').where({ account_id: accountId }).orderBy('seq')) as {
      amount_cents: string;
      balance_after_cents: string;
    }[];
    let running = 0;
    for (const transaction of transactions) {
      running += Number(transaction.amount_cents);
      expect(Number(transaction.balance_after_cents)).toBe(running);
      expect(running).toBeGreaterThanOrEqual(0);
    }
    expect(Number(balance?.available_cents ?? 0)).toBe(running);
    const [held] = await knex('inventory.purchase_intents')
      .where({ account_id: accountId, state: 'pending' })
      .sum<{ total: string | null }[]>({ total: 'hold_cents' });
    expect(Number(balance?.pending_cents ?? 0)).toBe(Number(held?.total ?? 0));
  }

  async function run(caller: Caller, step: Step): Promise<void> {
    const knex = db.knex;
    switch (step.kind) {
      case 'order': {
        const deps = { knex, catalogue: catalogueFor(step.outcome), logger, maxLiveInFlight: 100 };
        await placeOrder(deps, caller, { bundle: BUNDLE.name, quantity: step.quantity }, NO_CLAIM).catch((error: unknown) => {
          // Refusals are answers (402, 503 …); anything else is a defect.
          if (!(error instanceof ApiError)) throw error;
        });
        return;
      }
      case 'give_up': {
        const pending = await knex('inventory.purchase_intents')
          .where({ account_id: caller.accountId, state: 'pending' })
          .first<{ order_id: string } | undefined>('order_id');
        if (pending) await knex.transaction((trx) => returnHold(trx, pending.order_id, 'void', new Date(), 'given up'));
        return;
      }
      case 'refund': {
        const row = await knex('inventory.esims')
          .where({ account_id: caller.accountId })
          .whereNotIn('id', knex('inventory.refunds').select('esim_id'))
          .first<{ id: string } | undefined>('id');
        if (!row) return;
        await knex.transaction(async (trx) => {
          const esim = await findEsim(trx, row.id, { lock: true });
          if (esim) await openRefund(trx, esim, { refund: step.refunded ? 'refunded' : 'requested', vendor_refund_id: null }, new Date(), 60_000);
        });
        return;
      }
      case 'settle': {
        const pending = await knex('inventory.refunds').where({ account_id: caller.accountId, status: 'pending' }).first<{ id: string } | undefined>('id');
        if (pending) await settleRefund(knex, pending.id, step.status).catch(() => undefined);
        return;
      }
      case 'credit':
        await creditAccount(knex, caller.accountId, { amount_cents: step.cents });
        return;
      case 'set':
        await putAccountSettings(knex, caller.accountId, { live_balance_cents: step.cents });
        return;
    }
  }

  it('keeps the transactions adding up to a balance that is never negative, holds and all', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(stepArbitrary, { minLength: 1, maxLength: 4 }), { minLength: 3, maxLength: 10 }), async (batches) => {
        const caller: Caller = { accountId: newId('account'), environment: 'live' };
        await putAccountSettings(db.knex, caller.accountId, { verified: true, live_balance_cents: 1_000 });
        for (const batch of batches) {
          await Promise.all(batch.map((step) => run(caller, step)));
          await expectInvariants(caller.accountId);
        }
      }),
      { numRuns: 12 },
    );
  });
});
