import { ApiError, type Metadata, type Order, type SuppliedProfile } from '@connectivity/contracts';
import { errorMessage, newId, oneStatement, signalWork, type Caller, type IdempotencyClaim, type Logger, type StatementBatcher } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { debitAccount, findAccount } from '../db/account-repository.ts';
import { addEsimEvents } from '../db/esim-events.ts';
import { esimInsertion, isDuplicateIccid } from '../db/esim-repository.ts';
import { orderInsertion } from '../db/order-repository.ts';
import { insertRelease, RELEASES_SIGNAL } from '../db/release-repository.ts';
import { findOwnedTestClock } from '../db/test-clock-repository.ts';
import { defaultAccount } from '../domain/account.ts';
import { activationCode } from '../domain/activation-code.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { initialMetadata, sortedMetadata } from '../domain/metadata.ts';
import { assertCanPay, assertOrderable, dataLimitBytes, expiresAt, priceOrder } from '../domain/order.ts';
import { assertSandboxCaller, clockInstant, testClockNotFound } from '../domain/test-clock.ts';

export interface PlaceOrderDeps {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  now?: () => Date;
  /** Group commit of the statements of sandbox orders (each its own statement otherwise). */
  orders?: StatementBatcher;
}

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

  for (let attempt = 1; ; attempt += 1) {
    const orderId = newId('order');
    const profiles = await supply(deps, caller, { reference: orderId, bundle: bundle.name, quantity: input.quantity });

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
                // The balance may have been spent since the check above: check again under the row lock.
                const account = (await findAccount(trx, caller.accountId, { lock: true })) ?? defaultAccount(caller.accountId, 0);
                assertCanPay(account, price.total_cents);
                await debitAccount(trx, caller.accountId, price.total_cents, Math.floor(at.getTime() / 1000));
              }
              return write(trx, at);
            });
    } catch (error) {
      if (live) await queueRelease(deps, caller, orderId, profiles, error);
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
 * The supplier delivered (and bills us for) profiles we did not record: the order's transaction
 * failed, e.g. the balance was spent by another order between the check and the debit. They
 * are written down durably for the release worker, which terminates them at the supplier with
 * retries; the caller still gets the transaction's error (nothing was charged).
 */
async function queueRelease(deps: PlaceOrderDeps, caller: Caller, orderId: string, profiles: SuppliedProfile[], cause: unknown): Promise<void> {
  const reason = cause instanceof ApiError ? cause.code : errorMessage(cause);
  try {
    await insertRelease(
      deps.knex,
      { order_reference: orderId, account_id: caller.accountId, iccids: profiles.map((p) => p.iccid), reason },
      (deps.now ?? (() => new Date()))().getTime(),
    );
    signalWork(RELEASES_SIGNAL);
    deps.logger.warn({ orderId, reason }, 'live order not recorded; its supplier profiles will be released');
  } catch (error) {
    // The database is failing too: only the log is left to tell the operator.
    deps.logger.error({ orderId, iccids: profiles.map((p) => p.iccid), reason, err: errorMessage(error) }, 'live order not recorded and its supplier profiles could not be queued for release');
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
  const profiles = await deps.catalogue.orderProfiles(caller, input);
  if (profiles.length !== input.quantity) {
    throw new ApiError('supplier_refused', { message: 'The supplier did not deliver the profiles ordered; nothing was charged.' });
  }
  return profiles;
}
