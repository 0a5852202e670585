import type { Environment } from '@connectivity/contracts';
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
  created_at: number;
}

const intents = (db: Knex) => db.withSchema(SCHEMA).from('purchase_intents');

type IntentRow = Omit<PurchaseIntent, 'quantity' | 'created_at'> & { quantity: string | number; created_at: string | number };
const fromRow = (row: IntentRow): PurchaseIntent => ({ ...row, quantity: Number(row.quantity), created_at: Number(row.created_at) });

/**
 * The pending intent of the request (API key, Idempotency-Key), made now if it has none, in its
 * own statement (so it is committed before the supplier is asked). `resumed` says it was made by an
 * earlier attempt of the same request, which may have bought before it died.
 */
export async function openIntent(
  db: Knex,
  intent: Omit<PurchaseIntent, 'state' | 'created_at'>,
  nowMs: number,
  checkAfterMs: number,
): Promise<{ intent: PurchaseIntent; resumed: boolean }> {
  const row = { ...intent, state: 'pending', created_at: nowMs, next_check_at: nowMs + checkAfterMs };
  if (intent.key_id === null || intent.idempotency_key === null) {
    const [made] = (await intents(db).insert(row).returning('*')) as IntentRow[];
    return { intent: fromRow(made as IntentRow), resumed: false };
  }
  const [made] = (await intents(db)
    .insert(row)
    .onConflict(db.raw("(key_id, idempotency_key) where state = 'pending' and key_id is not null"))
    .ignore()
    .returning('*')) as IntentRow[];
  if (made) return { intent: fromRow(made), resumed: false };
  const found = (await intents(db).where({ key_id: intent.key_id, idempotency_key: intent.idempotency_key, state: 'pending' }).first()) as
    IntentRow | undefined;
  // Settled between the two statements (the earlier attempt finished after all): a fresh intent.
  if (!found) return openIntent(db, intent, nowMs, checkAfterMs);
  // The retry works on it now: the abandoned-intent worker leaves it alone meanwhile.
  await intents(db)
    .where({ order_id: found.order_id, state: 'pending' })
    .update({ next_check_at: nowMs + checkAfterMs });
  return { intent: fromRow(found), resumed: true };
}

/** The intent under its row lock, in the transaction that records or releases its purchase. */
export async function lockIntent(trx: Knex.Transaction, orderId: string): Promise<PurchaseIntent | undefined> {
  const row = (await intents(trx).where('order_id', orderId).forUpdate().first()) as IntentRow | undefined;
  return row && fromRow(row);
}

export async function settleIntent(db: Knex, orderId: string, state: Exclude<IntentState, 'pending'>, nowMs: number): Promise<void> {
  await intents(db).where({ order_id: orderId, state: 'pending' }).update({ state, finished_at: nowMs });
}

/** Pending intents older than their check time: no attempt is recording them any more. */
export type DueIntent = Pick<PurchaseIntent, 'order_id' | 'account_id' | 'bundle' | 'quantity' | 'created_at'>;

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
    returning: ['order_id', 'account_id', 'bundle', 'quantity', 'created_at'],
  });
  return claimed.map((row) => ({ ...row, quantity: Number(row.quantity), created_at: Number(row.created_at) }));
}
