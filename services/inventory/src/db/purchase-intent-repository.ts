import type { Environment, InternalBundle } from '@connectivity/contracts';
import { claimDue } from '@connectivity/platform';
import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

export type IntentState = 'pending' | 'recorded' | 'released' | 'void';

/** A live purchase about to be made, or made: our order id is its reference at the supplier. */
export interface PurchaseIntent {
  order_id: string;
  account_id: string;
  environment: Environment;
  key_id: string | null;
  idempotency_key: string | null;
  bundle: string;
  quantity: number;
  state: IntentState;
  /** What the order holds of the balance until it is recorded or given up (record 0157). */
  hold_cents: number;
  /** Until when the supplier's answer to our call may still come (Unix ms; record 0159); null: not in doubt. */
  in_doubt_until: number | null;
  vendor_request_id: string | null;
  /** The profile a top-up's intent tops up (record 0247); null for an order's. */
  iccid: string | null;
  /** The offer a top-up's intent buys, as it was priced (record 0259); null for an order's. */
  topup_offer: InternalBundle | null;
  created_at: number;
}

const intents = (db: Knex) => db.withSchema(SCHEMA).from('purchase_intents');

type IntentRow = Omit<PurchaseIntent, 'quantity' | 'hold_cents' | 'in_doubt_until' | 'topup_offer' | 'created_at'> & {
  topup_offer: unknown;
  quantity: string | number;
  hold_cents: string | number;
  in_doubt_until: string | number | null;
  created_at: string | number;
};

const COLUMNS = [
  'order_id',
  'account_id',
  'environment',
  'key_id',
  'idempotency_key',
  'bundle',
  'quantity',
  'state',
  'hold_cents',
  'in_doubt_until',
  'vendor_request_id',
  'iccid',
  'topup_offer',
  'created_at',
];

/** jsonb arrives parsed from `pg` and PGlite alike; a string is parsed for any driver that does not. */
const offerOf = (value: unknown): InternalBundle | null =>
  value === null || value === undefined ? null : ((typeof value === 'string' ? JSON.parse(value) : value) as InternalBundle);

const fromRow = (row: IntentRow): PurchaseIntent => ({
  ...row,
  topup_offer: offerOf(row.topup_offer),
  quantity: Number(row.quantity),
  hold_cents: Number(row.hold_cents),
  in_doubt_until: row.in_doubt_until === null ? null : Number(row.in_doubt_until),
  created_at: Number(row.created_at),
});

/** The pending intent of a request (API key, Idempotency-Key), if an earlier attempt of it left one. */
export async function findPendingIntent(db: Knex, request: { keyId: string; idempotencyKey: string }): Promise<PurchaseIntent | undefined> {
  const row = (await intents(db).select(COLUMNS).where({ key_id: request.keyId, idempotency_key: request.idempotencyKey, state: 'pending' }).first()) as
    IntentRow | undefined;
  return row && fromRow(row);
}

/**
 * The top-up a request's intent was recorded as, if one was (by the request, or by the worker after its
 * attempt was abandoned, record 0259): a retry of the request answers it rather than buying again.
 */
export async function findRecordedTopupIntent(db: Knex, request: { keyId: string; idempotencyKey: string }): Promise<string | undefined> {
  const row = (await intents(db)
    .select('order_id')
    .where({ key_id: request.keyId, idempotency_key: request.idempotencyKey, state: 'recorded' })
    .whereNotNull('iccid')
    .first()) as { order_id: string } | undefined;
  return row?.order_id;
}

/** Writes a new pending intent, in the transaction that takes its hold. */
export async function insertIntent(
  trx: Knex.Transaction,
  intent: Omit<PurchaseIntent, 'state' | 'in_doubt_until' | 'vendor_request_id' | 'iccid' | 'topup_offer' | 'created_at'> & {
    iccid?: string | null;
    topup_offer?: InternalBundle | null;
  },
  nowMs: number,
  nextCheckAt: number,
): Promise<PurchaseIntent> {
  const [row] = await intents(trx)
    .insert({
      ...intent,
      topup_offer: intent.topup_offer ? JSON.stringify(intent.topup_offer) : null,
      state: 'pending',
      created_at: nowMs,
      next_check_at: nextCheckAt,
    })
    .returning<IntentRow[]>(COLUMNS);
  return fromRow(row as IntentRow);
}

/** Live purchases of the account still in flight (pending): counted under the balance's lock. */
export async function countInFlight(trx: Knex.Transaction, accountId: string): Promise<number> {
  const [row] = await intents(trx).where({ account_id: accountId, state: 'pending' }).count<{ n: string | number }[]>({ n: '*' });
  return Number(row?.n ?? 0);
}

/** A retry works on the intent now: the abandoned-intent worker leaves it alone until `nextCheckAt`. */
export async function deferIntentCheck(db: Knex, orderId: string, nextCheckAt: number): Promise<void> {
  await intents(db).where({ order_id: orderId, state: 'pending' }).update({ next_check_at: nextCheckAt });
}

/**
 * The supplier's answer to our purchase call is unknown (record 0159): no second purchase for this
 * order before `untilMs` unless the supplier shows the first; the worker looks again after it.
 */
export async function markInDoubt(db: Knex, orderId: string, untilMs: number, vendorRequestId: string | null, nextCheckAt: number): Promise<void> {
  await intents(db)
    .where({ order_id: orderId, state: 'pending' })
    .update({ in_doubt_until: untilMs, next_check_at: nextCheckAt, ...(vendorRequestId !== null && { vendor_request_id: vendorRequestId }) });
}

/** The purchase call ended (bought, or refused for sure): the intent is no longer in doubt. */
export async function clearInDoubt(db: Knex, orderId: string): Promise<void> {
  await intents(db).where({ order_id: orderId, state: 'pending' }).update({ in_doubt_until: null });
}

/** The intent under its row lock, in the transaction that records or releases its purchase. */
export async function lockIntent(trx: Knex.Transaction, orderId: string): Promise<PurchaseIntent | undefined> {
  const row = (await intents(trx).select(COLUMNS).where('order_id', orderId).forUpdate().first()) as IntentRow | undefined;
  return row && fromRow(row);
}

export async function settleIntent(db: Knex, orderId: string, state: Exclude<IntentState, 'pending'>, nowMs: number): Promise<void> {
  await intents(db).where({ order_id: orderId, state: 'pending' }).update({ state, finished_at: nowMs });
}

/** Pending intents older than their check time: no attempt is recording them any more. */
export type DueIntent = Pick<PurchaseIntent, 'order_id' | 'account_id' | 'bundle' | 'quantity' | 'created_at' | 'in_doubt_until' | 'iccid' | 'topup_offer'>;

/**
 * How the supplier may recognise an intent's purchase when asked what it did (record 0132): from
 * when (Unix seconds), which bundle, how many.
 */
export const placedOf = (intent: Pick<PurchaseIntent, 'bundle' | 'quantity' | 'created_at'>) => ({
  since: Math.floor(intent.created_at / 1000),
  bundle: intent.bundle,
  quantity: intent.quantity,
});

/**
 * Claims up to `limit` intents left pending past their check time (the request that made them
 * died, or failed and was not retried), pushing the next check `leaseMs` ahead: the supplier is
 * then asked what it did for them, outside any transaction.
 */
export async function claimAbandonedIntents(db: Knex, nowMs: number, leaseMs: number, limit: number): Promise<DueIntent[]> {
  const claimed = await claimDue<IntentRow>(db, {
    table: `${SCHEMA}.purchase_intents`,
    key: 'order_id',
    due: { sql: "state = 'pending' and next_check_at <= ?", bindings: [nowMs] },
    orderBy: 'next_check_at',
    limit,
    set: { sql: 'next_check_at = ?', bindings: [nowMs + leaseMs] },
    returning: ['order_id', 'account_id', 'bundle', 'quantity', 'created_at', 'in_doubt_until', 'iccid', 'topup_offer'],
  });
  return claimed.map((row) => ({
    ...row,
    topup_offer: offerOf(row.topup_offer),
    quantity: Number(row.quantity),
    created_at: Number(row.created_at),
    in_doubt_until: row.in_doubt_until === null ? null : Number(row.in_doubt_until),
  }));
}
