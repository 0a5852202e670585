import { ApiError, type Metadata, type Order, type SuppliedProfile } from '@connectivity/contracts';
import { errorMessage, newId, oneStatement, type Caller, type IdempotencyClaim, type Logger, type StatementBatcher } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { debitAccount, findAccount } from '../db/account-repository.ts';
import { addEsimEvents } from '../db/esim-events.ts';
import { esimInsertion, isDuplicateIccid } from '../db/esim-repository.ts';
import { orderInsertion } from '../db/order-repository.ts';
import { lockIntent, openIntent, placedOf, settleIntent, type DueIntent } from '../db/purchase-intent-repository.ts';
import { findOwnedTestClock } from '../db/test-clock-repository.ts';
import { defaultAccount } from '../domain/account.ts';
import { activationCode } from '../domain/activation-code.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { initialMetadata, sortedMetadata } from '../domain/metadata.ts';
import { assertCanPay, assertOrderable, dataLimitBytes, expiresAt, priceOrder } from '../domain/order.ts';
import { assertSandboxCaller, clockInstant, testClockNotFound } from '../domain/test-clock.ts';
import { releasePurchase } from './release-purchase.ts';

export interface PlaceOrderDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  now?: () => Date;
  /** Group commit of the statements of sandbox orders (each its own statement otherwise). */
  orders?: StatementBatcher;
  /**
   * How long a live purchase's intent is left to the request that made it (and its retries)
   * before the purchase-intent worker settles it (record 0152).
   */
  intentCheckAfterMs?: number;
}

/** The default of `intentCheckAfterMs`: well past the idempotency lease and the catalogue's timeout. */
export const INTENT_CHECK_AFTER_MS = 10 * 60_000;

// Sandbox ICCIDs are random: a collision with an existing one is all but impossible, but if it
// happens the order is simply made again with fresh profiles.
const SANDBOX_ATTEMPTS = 3;

/**
 * POST /v1/esim. The bundle and the profiles come from catalogue before the transaction (never a
 * remote call inside it); then ONE statement writes the order, its eSIMs, one `esim.released`
 * event per eSIM and the idempotent answer (for a live order, in the transaction that debits the
 * account). `metadata` is set on the order and on each eSIM.
 * With `test_clock` (sandbox only) the order, its eSIMs and their events are dated at the clock's
 * time, and the eSIMs age only when the clock is advanced.
 */
export async function placeOrder(
  deps: PlaceOrderDeps,
  caller: Caller,
  input: { bundle: string; quantity: number; metadata?: Metadata | undefined; test_clock?: string | undefined },
  claim: IdempotencyClaim,
): Promise<Order> {
  const now = deps.now ?? (() => new Date());
  const live = caller.environment === 'live';
  const metadata = initialMetadata(input.metadata);
  // A test clock is checked first (a live key may not use one); its time is read again in the transaction.
  const clockId = input.test_clock ?? null;
  if (clockId !== null) await assertOrderableClock(deps.knex, caller, clockId);

  const bundle = await findBundle(deps, caller, input.bundle);
  assertOrderable(bundle, caller.environment);
  const price = priceOrder(bundle, input.quantity, caller.environment);
  // Checked before buying profiles, so a refused order costs the supplier nothing.
  if (live) assertCanPay((await findAccount(deps.knex, caller.accountId)) ?? defaultAccount(caller.accountId, 0), price.total_cents);
  // A live purchase is bought once per request, whatever crashes (record 0152); sandbox profiles cost nothing.
  const purchase = live ? await livePurchase(deps, caller, { bundle: bundle.name, quantity: input.quantity }, claim) : undefined;

  for (let attempt = 1; ; attempt += 1) {
    const orderId = purchase ? purchase.orderId : newId('order');
    const profiles = purchase ? purchase.profiles : await supply(deps, caller, { reference: orderId, bundle: bundle.name, quantity: input.quantity });

    /** The order and its eSIMs as made at `createdAt` (now, or the clock's time). */
    const build = (createdAt: number) => {
      const esims: EsimRecord[] = profiles.map((profile) => ({
        id: newId('esim'),
        account_id: caller.accountId,
        environment: caller.environment,
        order_id: orderId,
        iccid: profile.iccid,
        state: 'released',
        expired_reason: null,
        bundle: bundle.name,
        data_used_bytes: 0,
        data_limit_bytes: dataLimitBytes(bundle),
        thresholds_notified: [],
        activation_code: activationCode(profile.smdp_address, profile.matching_id),
        smdp_address: profile.smdp_address,
        matching_id: profile.matching_id,
        expires_at: expiresAt(createdAt, bundle.duration_days),
        created_at: createdAt,
        updated_at: createdAt,
        metadata,
        test_clock: clockId,
      }));
      const order: Order = {
        object: 'order',
        id: orderId,
        bundle: bundle.name,
        quantity: input.quantity,
        ...price,
        esims: esims.map(toPublicEsim),
        simulated: !live,
        metadata: sortedMetadata(metadata),
        test_clock: clockId,
        created_at: createdAt,
      };
      return { esims, order };
    };

    /** Writes the order made at `at` as ONE statement on `db` (see `oneStatement`), or in one with other orders' (`deps.orders`). */
    const write = async (db: Knex, at: Date): Promise<Order> => {
      const made = build(Math.floor(at.getTime() / 1000));
      const statement = oneStatement();
      statement.add(
        orderInsertion(db, {
          id: orderId,
          account_id: caller.accountId,
          environment: caller.environment,
          bundle: bundle.name,
          quantity: input.quantity,
          price_cents: price.price_cents,
          total_cents: price.total_cents,
          currency: price.currency,
          metadata,
          test_clock: clockId,
          created_at: made.order.created_at,
        }),
      );
      statement.add(esimInsertion(db, made.esims));
      addEsimEvents(
        statement,
        db,
        made.esims.map((esim) => ({ kind: 'state', esim, previous_state: null })),
        at,
      );
      // The answer commits with the order: a retry with the same key gets this order back.
      claim.recordIn(statement, db, 201, made.order);
      // Its writes are inserts and the update of its own claim: it may share a statement with
      // other orders' (no row is written by two of them).
      await (deps.orders && !db.isTransaction ? deps.orders.run(statement) : statement.run(db));
      return made.order;
    };

    let order: Order;
    try {
      // A sandbox order reads nothing it must lock: its writes are the one statement, one round
      // trip. A live order first locks and debits the balance; a clock's time is read in the
      // transaction that dates the order.
      order =
        !live && clockId === null
          ? await write(deps.knex, now())
          : await deps.knex.transaction(async (trx) => {
              const at = clockId === null ? now() : clockInstant(await orderTimeOnClock(trx, caller, clockId));
              if (live) {
                // The purchase is recorded once: not if its intent was settled meanwhile (released
                // by the worker, or recorded by another attempt of the same request).
                const intent = await lockIntent(trx, orderId);
                if (intent?.state !== 'pending') throw purchaseGivenUp();
                await settleIntent(trx, orderId, 'recorded', at.getTime());
                // The balance may have been spent since the check above: check again under the row lock.
                const account = (await findAccount(trx, caller.accountId, { lock: true })) ?? defaultAccount(caller.accountId, 0);
                assertCanPay(account, price.total_cents);
                await debitAccount(trx, caller.accountId, price.total_cents, Math.floor(at.getTime() / 1000));
              }
              return write(trx, at);
            });
    } catch (error) {
      if (live) await settleFailedPurchase(deps, caller, orderId, profiles, error);
      if (isDuplicateIccid(error)) {
        if (!live && attempt < SANDBOX_ATTEMPTS) continue;
        throw new ApiError('supplier_refused', { message: 'The supplier delivered a profile that is already in use; nothing was charged.' });
      }
      throw error;
    }
    return order;
  }
}

/**
 * The live purchase of this request: its intent (our order id) is committed before the supplier
 * is asked, and the supplier is asked with that id as the reference. A retry of the same request
 * (API key and Idempotency-Key) after a crash finds the intent and asks the supplier what it did
 * under that reference before buying: the profiles it made are the order's, and only when it made
 * none is the order bought (record 0152).
 */
async function livePurchase(
  deps: PlaceOrderDeps,
  caller: Caller,
  input: { bundle: string; quantity: number },
  claim: IdempotencyClaim,
): Promise<{ orderId: string; profiles: SuppliedProfile[] }> {
  const { intent, resumed } = await openIntent(
    deps.knex,
    {
      order_id: newId('order'),
      account_id: caller.accountId,
      environment: caller.environment,
      key_id: claim.request?.keyId ?? null,
      idempotency_key: claim.request?.idempotencyKey ?? null,
      bundle: input.bundle,
      quantity: input.quantity,
    },
    (deps.now ?? (() => new Date()))().getTime(),
    deps.intentCheckAfterMs ?? INTENT_CHECK_AFTER_MS,
  );
  const reference = { reference: intent.order_id, bundle: intent.bundle, quantity: intent.quantity };
  if (resumed) {
    const bought = await findPurchase(deps, caller, intent);
    if (bought !== null && bought.length > 0) {
      deps.logger.info(
        { orderId: intent.order_id, profiles: bought.length },
        'a retried live order found what the supplier made for it; nothing is bought again',
      );
      return { orderId: intent.order_id, profiles: checkedProfiles(bought, intent.quantity) };
    }
  }
  return { orderId: intent.order_id, profiles: await supply(deps, caller, reference) };
}

async function findPurchase(deps: PlaceOrderDeps, caller: Caller, intent: Omit<DueIntent, 'account_id'>): Promise<SuppliedProfile[] | null> {
  try {
    return await deps.catalogue.findOrder(caller, intent.order_id, placedOf(intent));
  } catch (error) {
    // Not knowing what was bought, buying again could buy twice: the order waits for a retry.
    if (error instanceof ApiError) {
      throw new ApiError('supplier_refused', {
        message: 'The supplier cannot take orders right now; nothing was charged. Retry later with the same Idempotency-Key.',
      });
    }
    throw error;
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
 * the request is refused for good (e.g. the balance was spent by another order between the check
 * and the debit), they are written down durably for the release worker, which terminates them at
 * the supplier with retries. When it failed otherwise (the database, a lost claim), its intent
 * stays pending: a retry of the request records these very profiles, and without a retry the
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

async function findBundle(deps: PlaceOrderDeps, caller: Caller, name: string) {
  try {
    return await deps.catalogue.getBundle(caller, name);
  } catch (error) {
    // A name catalogue does not know, or one that cannot be a bundle name at all.
    if (error instanceof ApiError && (error.code === 'resource_not_found' || error.code === 'invalid_parameter')) {
      throw new ApiError('invalid_parameter', { param: 'bundle', message: `No bundle is named \`${name}\`; list them with GET /v1/esim/bundles.` });
    }
    // POST /v1/esim documents one supplier failure: the order is refused.
    if (error instanceof ApiError && (error.code === 'supplier_unavailable' || error.code === 'pricing_unavailable')) {
      throw new ApiError('supplier_refused', { message: 'The supplier cannot take orders right now; nothing was charged. Retry later.' });
    }
    throw error;
  }
}

async function supply(deps: PlaceOrderDeps, caller: Caller, input: { reference: string; bundle: string; quantity: number }): Promise<SuppliedProfile[]> {
  return checkedProfiles(await deps.catalogue.orderProfiles(caller, input), input.quantity);
}

function checkedProfiles(profiles: SuppliedProfile[], quantity: number): SuppliedProfile[] {
  if (profiles.length !== quantity) {
    throw new ApiError('supplier_refused', { message: 'The supplier did not deliver the profiles ordered; nothing was charged.' });
  }
  return profiles;
}
