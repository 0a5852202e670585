import { ApiError, type InternalBundle, type Metadata, type Order, type SuppliedProfile } from '@connectivity/contracts';
import { errorMessage, newId, type Batcher, type Caller, type IdempotencyClaim, type Logger, type StatementBatcher } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { isDuplicateIccid } from '../db/esim-repository.ts';
import { keepHold } from '../db/purchase-settlement.ts';
import { payFromSimulatedBalance } from '../db/simulated-payment.ts';
import { findOwnedTestClock } from '../db/test-clock-repository.ts';
import { giveBackTestEsims, takeTestEsims, utcDay, type TestEsimsTake } from '../db/test-quotas.ts';
import { testEsimsQuotaExceeded } from '../domain/test-quotas.ts';
import { initialMetadata } from '../domain/metadata.ts';
import { assertOrderable, priceOrder } from '../domain/order.ts';
import { assertSandboxCaller, clockInstant, testClockNotFound } from '../domain/test-clock.ts';
import { livePurchase, purchaseSettings, supplierUnavailable } from './live-purchase.ts';
import { releasePurchase } from './release-purchase.ts';
import { SimulatedBalanceInUse, writeOrder, type OrderDraft } from './write-order.ts';

export interface PlaceOrderDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  now?: () => Date;
  /** Group commit of the statements of sandbox orders (each its own statement otherwise). */
  orders?: StatementBatcher;
  /** How long a live purchase's intent is left to its request and retries before the worker settles it (record 0152). */
  intentCheckAfterMs?: number;
  /** Live purchases in flight per account at most (record 0162). */
  maxLiveInFlight?: number;
  /** How long a purchase call that may have reached the vendor keeps its order in doubt, unless the vendor says otherwise (record 0159). */
  purchaseInDoubtMs?: number;
  /** Test eSIMs an account may create in a UTC day (record 0212); unlimited when not given. */
  testEsimsPerDay?: number;
  /** The takes of that quota by concurrent orders in one statement (record 0276); each its own otherwise. */
  testEsimsTaker?: Batcher<TestEsimsTake, boolean>;
}

// Sandbox ICCIDs are random: a collision with an existing one is all but impossible, but if it
// happens the order is simply made again with fresh profiles.
const SANDBOX_ATTEMPTS = 3;

type OrderInput = { bundle: string; quantity: number; metadata?: Metadata | undefined; test_clock?: string | undefined };

/**
 * POST /v1/esim. The bundle and the profiles come from catalogue before the transaction (never a
 * remote call inside it); then ONE statement writes the order, its eSIMs, one `esim.released`
 * event per eSIM and the idempotent answer. A live order is paid by the hold its purchase took
 * before the supplier was asked (records 0157, 0159); a sandbox order is paid only from a simulated
 * balance the account set. `metadata` is set on the order and on each eSIM. With `test_clock`
 * (sandbox only) the order, its eSIMs and their events are dated at the clock's time.
 */
export async function placeOrder(deps: PlaceOrderDeps, caller: Caller, input: OrderInput, claim: IdempotencyClaim): Promise<Order> {
  const clockId = input.test_clock ?? null;
  // A test clock is checked first (a live key may not use one); its time is read again in the transaction.
  if (clockId !== null) await assertOrderableClock(deps.knex, caller, clockId);
  const bundle = await findBundle(deps, caller, input.bundle);
  assertOrderable(bundle, caller.environment);
  const price = priceOrder(bundle, input.quantity, caller.environment);
  const draft = { bundle, quantity: input.quantity, price, metadata: initialMetadata(input.metadata), testClock: clockId };
  if (caller.environment === 'live') return placeLiveOrder(deps, caller, draft, claim);
  if (deps.testEsimsPerDay === undefined) return placeSandboxOrder(deps, caller, draft, claim);
  return withinTestEsimsQuota(deps, caller, draft.quantity, deps.testEsimsPerDay, () => placeSandboxOrder(deps, caller, draft, claim));
}

/**
 * A test order takes its eSIMs from the day's quota before it is written (record 0212), by real
 * time whatever a clock says (the rows are real), and gives them back if it is not made. Taken
 * apart from the order's statement so that orders of one account still share a group commit; a
 * crash between the two can only leave the quota counting an order that was not made, never let
 * one pass it.
 */
async function withinTestEsimsQuota(deps: PlaceOrderDeps, caller: Caller, quantity: number, limit: number, place: () => Promise<Order>): Promise<Order> {
  const day = utcDay(new Date());
  const take = { accountId: caller.accountId, day, quantity, limit };
  const taken = deps.testEsimsTaker ? await deps.testEsimsTaker.add(take) : await takeTestEsims(deps.knex, take.accountId, day, quantity, limit);
  if (!taken) throw testEsimsQuotaExceeded(limit, quantity);
  try {
    return await place();
  } catch (error) {
    await giveBackTestEsims(deps.knex, caller.accountId, day, quantity).catch((failure: unknown) =>
      deps.logger.warn({ err: errorMessage(failure) }, 'giving back the test eSIMs of an order not made failed'),
    );
    throw error;
  }
}

type Draft = Omit<OrderDraft, 'orderId' | 'profiles'>;

/** The live purchase (held and bought once), then its record, which keeps the hold. */
async function placeLiveOrder(deps: PlaceOrderDeps, caller: Caller, draft: Draft, claim: IdempotencyClaim): Promise<Order> {
  const now = deps.now ?? (() => new Date());
  const { orderId, profiles } = await livePurchase(
    {
      knex: deps.knex,
      catalogue: deps.catalogue,
      logger: deps.logger,
      ...purchaseSettings(deps),
    },
    caller,
    { bundle: draft.bundle.name, quantity: draft.quantity, price_cents: draft.price.price_cents, total_cents: draft.price.total_cents },
    claim,
  );
  try {
    return await deps.knex.transaction(async (trx) => {
      const at = now();
      // Recorded once: not if the intent was settled meanwhile (given up by the worker, or recorded
      // by another attempt of the same request).
      if (!(await keepHold(trx, orderId, at))) throw purchaseGivenUp();
      return writeOrder(trx, caller, { ...draft, orderId, profiles }, at, claim);
    });
  } catch (error) {
    await settleFailedPurchase(deps, caller, orderId, profiles, error);
    if (isDuplicateIccid(error)) {
      throw new ApiError('supplier_refused', { message: 'The supplier delivered a profile that is already in use; nothing was charged.' });
    }
    throw error;
  }
}

/**
 * A sandbox order: profiles from the stock, written in one statement (batched with others) unless the
 * account set a simulated balance, in which case it is paid from it in a transaction that locks it; an
 * order on a test clock is dated in a transaction that reads the clock.
 */
async function placeSandboxOrder(deps: PlaceOrderDeps, caller: Caller, draft: Draft, claim: IdempotencyClaim): Promise<Order> {
  const now = deps.now ?? (() => new Date());
  let paid = false;
  for (let attempt = 1; ; attempt += 1) {
    const orderId = newId('order');
    const profiles = await sandboxProfiles(deps, caller, { reference: orderId, bundle: draft.bundle.name, quantity: draft.quantity });
    const order = { ...draft, orderId, profiles };
    try {
      if (draft.testClock === null && !paid) return await writeOrder(deps.knex, caller, order, now(), claim, { batcher: deps.orders, unpaid: true });
      return await deps.knex.transaction(async (trx) => {
        const at = draft.testClock === null ? now() : clockInstant(await orderTimeOnClock(trx, caller, draft.testClock));
        const total = draft.bundle.price_cents * draft.quantity;
        await payFromSimulatedBalance(
          trx,
          caller,
          { type: 'order', amount_cents: total, source: orderId, description: `${draft.quantity} × ${draft.bundle.name}` },
          at,
        );
        return writeOrder(trx, caller, order, at, claim);
      });
    } catch (error) {
      if (error instanceof SimulatedBalanceInUse && !paid) {
        paid = true;
        attempt -= 1;
        continue;
      }
      if (isDuplicateIccid(error) && attempt < SANDBOX_ATTEMPTS) continue;
      if (isDuplicateIccid(error)) throw new ApiError('supplier_refused', { message: 'The sandbox could not make unique profiles; nothing was charged.' });
      throw error;
    }
  }
}

const purchaseGivenUp = () =>
  new ApiError('supplier_refused', { message: 'This order was given up while it was being recorded and its profiles are released; nothing was charged.' });

/** A refusal that answers the request for good (it is replayed to a retry): its purchase will never be recorded. */
function isFinalRefusal(error: unknown): boolean {
  if (isDuplicateIccid(error)) return true;
  // A lost idempotency claim is not final: the retry that took it over records the purchase.
  return error instanceof ApiError && error.status < 500 && error.code !== 'idempotency_key_reused';
}

/**
 * The supplier delivered (and bills us for) profiles the order's transaction did not record. When
 * the request is refused for good, they are written down durably for the release worker and the
 * hold is given back. When it failed otherwise (the database, a lost claim), its intent stays
 * pending: a retry of the request records these very profiles, and without a retry the
 * purchase-intent worker releases them. The caller gets the transaction's error (nothing was charged).
 */
async function settleFailedPurchase(deps: PlaceOrderDeps, caller: Caller, orderId: string, profiles: SuppliedProfile[], cause: unknown): Promise<void> {
  const reason = cause instanceof ApiError ? cause.code : errorMessage(cause);
  if (!isFinalRefusal(cause)) {
    deps.logger.warn({ orderId, reason }, 'live order not recorded; a retry records its supplier profiles, or they are released later');
    return;
  }
  try {
    const released = await releasePurchase(
      deps.knex,
      { accountId: caller.accountId, orderId, iccids: profiles.map((p) => p.iccid), reason },
      (deps.now ?? (() => new Date()))().getTime(),
    );
    if (released) deps.logger.warn({ orderId, reason }, 'live order not recorded; its supplier profiles will be released');
  } catch (error) {
    // The database is failing too: only the log is left to tell the operator.
    deps.logger.error(
      { orderId, iccids: profiles.map((p) => p.iccid), reason, err: errorMessage(error) },
      'live order not recorded and its supplier profiles could not be queued for release',
    );
  }
}

/** Checks `test_clock` of an order before anything is bought: a sandbox caller's own clock, not deleted. */
async function assertOrderableClock(knex: Knex, caller: Caller, clockId: string): Promise<void> {
  assertSandboxCaller(caller.environment, 'test_clock');
  if (!(await findOwnedTestClock(knex, caller, clockId))) throw testClockNotFound('test_clock');
}

/**
 * The time an order on a test clock is placed at: the clock's, read under a share lock held to
 * the end of the order's transaction. An advance takes the clock's row lock, so it waits for the
 * order to commit and then sees (and expires, when due) its eSIMs; an order never lands behind it.
 */
async function orderTimeOnClock(trx: Knex.Transaction, caller: Caller, clockId: string): Promise<number> {
  const clock = await findOwnedTestClock(trx, caller, clockId, { lock: 'share' });
  if (!clock) throw testClockNotFound('test_clock');
  return clock.frozen_time;
}

async function findBundle(deps: PlaceOrderDeps, caller: Caller, name: string): Promise<InternalBundle> {
  try {
    return await deps.catalogue.getBundle(caller, name);
  } catch (error) {
    // A name catalogue does not know, or one that cannot be a bundle name at all.
    if (error instanceof ApiError && (error.code === 'resource_not_found' || error.code === 'invalid_parameter')) {
      throw new ApiError('invalid_parameter', { param: 'bundle', message: `No bundle is named \`${name}\`; list them with GET /v1/esim/bundles.` });
    }
    // The supplier's catalogue or prices cannot be had: nothing was held or bought; retry later.
    if (error instanceof ApiError && error.code === 'supplier_unavailable') {
      throw supplierUnavailable('The supplier cannot be reached right now; nothing was charged. Retry later.', retryAfterOf(error, 30));
    }
    if (error instanceof ApiError && error.code === 'pricing_unavailable') {
      throw new ApiError('pricing_unavailable', { message: error.message, retryAfter: String(retryAfterOf(error, 30)) });
    }
    throw error;
  }
}

const retryAfterOf = (error: ApiError, fallback: number): number => {
  const given = Number(error.retryAfter);
  return Number.isFinite(given) && given > 0 ? given : fallback;
};

async function sandboxProfiles(
  deps: PlaceOrderDeps,
  caller: Caller,
  input: { reference: string; bundle: string; quantity: number },
): Promise<SuppliedProfile[]> {
  const profiles = await deps.catalogue.orderProfiles(caller, input);
  if (profiles.length !== input.quantity) throw new ApiError('supplier_refused', { message: 'The sandbox did not make the profiles ordered.' });
  return profiles;
}
