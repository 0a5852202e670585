import type { InternalBundle, Metadata, Order, SuppliedProfile } from '@connectivity/contracts';
import { newId, oneStatement, type Caller, type IdempotencyClaim, type StatementBatcher } from '@connectivity/platform';
import type { Knex } from 'knex';
import { addEsimEvents } from '../db/esim-events.ts';
import { esimInsertion } from '../db/esim-repository.ts';
import { orderInsertion, unpaidSandboxOrderInsertion, type OrderRecord } from '../db/order-repository.ts';
import { activationCode } from '../domain/activation-code.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { sortedMetadata } from '../domain/metadata.ts';
import { dataLimitBytes, type OrderPrice } from '../domain/order.ts';
import { expiresAtPurchase, installBy } from '../domain/validity.ts';

/** What an order is made of once its profiles are in hand. */
export interface OrderDraft {
  orderId: string;
  bundle: InternalBundle;
  quantity: number;
  price: OrderPrice;
  metadata: Metadata;
  testClock: string | null;
  profiles: SuppliedProfile[];
}

/** A sandbox account has a simulated balance in use: its order must take the path that pays. */
export class SimulatedBalanceInUse extends Error {
  override readonly name = 'SimulatedBalanceInUse';
}

/** The order and its eSIMs as made at `createdAt` (now, or the clock's time). */
export function buildOrder(caller: Caller, draft: OrderDraft, createdAt: number): { record: OrderRecord; esims: EsimRecord[]; order: Order } {
  const esims: EsimRecord[] = draft.profiles.map((profile) => ({
    id: newId('esim'),
    account_id: caller.accountId,
    environment: caller.environment,
    order_id: draft.orderId,
    iccid: profile.iccid,
    state: 'released',
    expired_reason: null,
    bundle: draft.bundle.name,
    data_used_bytes: 0,
    data_limit_bytes: dataLimitBytes(draft.bundle),
    thresholds_notified: [],
    activation_code: activationCode(profile.smdp_address, profile.matching_id),
    smdp_address: profile.smdp_address,
    matching_id: profile.matching_id,
    validity_start: draft.bundle.validity_start,
    validity_days: draft.bundle.duration_days ?? null,
    expires_at: expiresAtPurchase(createdAt, draft.bundle.duration_days, draft.bundle.validity_start),
    install_by: installBy(createdAt, draft.bundle.install_window_days),
    created_at: createdAt,
    updated_at: createdAt,
    metadata: draft.metadata,
    test_clock: draft.testClock,
  }));
  const record: OrderRecord = {
    id: draft.orderId,
    account_id: caller.accountId,
    environment: caller.environment,
    bundle: draft.bundle.name,
    quantity: draft.quantity,
    price_cents: draft.price.price_cents,
    total_cents: draft.price.total_cents,
    currency: draft.price.currency,
    metadata: draft.metadata,
    test_clock: draft.testClock,
    created_at: createdAt,
  };
  const order: Order = {
    object: 'order',
    id: draft.orderId,
    bundle: draft.bundle.name,
    quantity: draft.quantity,
    ...draft.price,
    esims: esims.map(toPublicEsim),
    simulated: caller.environment === 'test',
    metadata: sortedMetadata(draft.metadata),
    test_clock: draft.testClock,
    created_at: createdAt,
  };
  return { record, esims, order };
}

/**
 * Writes the order made at `at` as ONE statement on `db` (see `oneStatement`): the order, its eSIMs,
 * one `esim.released` each and the idempotent answer; or in one statement with other orders'
 * (`batcher`), whose writes are inserts and the update of their own claims, so no row is written by
 * two of them. `unpaid`: a sandbox order outside any transaction, refused with `SimulatedBalanceInUse`
 * when the account has a simulated balance to pay from.
 */
export async function writeOrder(
  db: Knex,
  caller: Caller,
  draft: OrderDraft,
  at: Date,
  claim: IdempotencyClaim,
  options: { batcher?: StatementBatcher | undefined; unpaid?: boolean } = {},
): Promise<Order> {
  const made = buildOrder(caller, draft, Math.floor(at.getTime() / 1000));
  const statement = oneStatement();
  if (options.unpaid) statement.require(unpaidSandboxOrderInsertion(db, made.record), () => new SimulatedBalanceInUse());
  else statement.add(orderInsertion(db, made.record));
  statement.add(esimInsertion(db, made.esims));
  addEsimEvents(
    statement,
    db,
    made.esims.map((esim) => ({ kind: 'state', esim, previous_state: null })),
    at,
  );
  // The answer commits with the order: a retry with the same key gets this order back.
  claim.recordIn(statement, db, 201, made.order);
  await (options.batcher && !db.isTransaction ? options.batcher.run(statement) : statement.run(db));
  return made.order;
}
