import { ApiError, type BalanceTransactionType, type Environment } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import { lowBalanceChange, toPublicBalance, type BalanceRecord, type Movement, type TransactionRecord } from '../domain/balance.ts';
import { addEvent } from './outbox-events.ts';
import { SCHEMA } from './schema.ts';

const balances = (db: Knex) => db.withSchema(SCHEMA).from('balances');
const transactions = (db: Knex) => db.withSchema(SCHEMA).from('balance_transactions');

interface BalanceRow extends Omit<BalanceRecord, 'available_cents' | 'pending_cents' | 'low_threshold_cents' | 'updated_at'> {
  available_cents: string | number;
  pending_cents: string | number;
  low_threshold_cents: string | number | null;
  updated_at: string | number;
}

const toBalance = (row: BalanceRow): BalanceRecord => ({
  account_id: row.account_id,
  environment: row.environment,
  available_cents: Number(row.available_cents),
  pending_cents: Number(row.pending_cents),
  enforced: row.enforced,
  low_threshold_cents: row.low_threshold_cents === null ? null : Number(row.low_threshold_cents),
  low_notified: row.low_notified,
  updated_at: Number(row.updated_at),
});

type TransactionRow = Omit<TransactionRecord, 'amount_cents' | 'balance_after_cents' | 'created_at'> & {
  seq: string | number;
  amount_cents: string | number;
  balance_after_cents: string | number;
  created_at: string | number;
};

const toTransaction = ({ seq: _seq, ...row }: TransactionRow): TransactionRecord => ({
  ...row,
  amount_cents: Number(row.amount_cents),
  balance_after_cents: Number(row.balance_after_cents),
  created_at: Number(row.created_at),
});

export async function findBalance(db: Knex, accountId: string, environment: Environment): Promise<BalanceRecord | undefined> {
  const row = (await balances(db).where({ account_id: accountId, environment }).first()) as BalanceRow | undefined;
  return row && toBalance(row);
}

/**
 * The balance under its row lock, for the caller's transaction: every movement of one balance is
 * made by one transaction at a time, so a check and the movement it allows never race. With
 * `create`, a balance the account never had is made (empty) first.
 */
export async function lockBalance(
  trx: Knex.Transaction,
  accountId: string,
  environment: Environment,
  options: { create: boolean; now: number },
): Promise<BalanceRecord | undefined> {
  if (options.create) {
    await balances(trx)
      .insert({ account_id: accountId, environment, enforced: environment === 'live', updated_at: options.now })
      .onConflict(['account_id', 'environment'])
      .ignore();
  }
  const row = (await balances(trx).where({ account_id: accountId, environment }).forUpdate().first()) as BalanceRow | undefined;
  return row && toBalance(row);
}

/**
 * Writes one movement of the locked balance: the transaction (append-only) and the balance after it,
 * and `balance.low` in the outbox when it falls below the threshold (once per crossing). The caller
 * has checked that the balance can pay; a movement that would leave it negative is refused here too.
 */
export async function postMovement(
  trx: Knex.Transaction,
  balance: BalanceRecord,
  movement: Movement,
  at: Date,
): Promise<{ balance: BalanceRecord; transaction: TransactionRecord }> {
  const available = balance.available_cents + movement.amount_cents;
  const pending = balance.pending_cents + (movement.pending_delta ?? 0);
  if (available < 0) throw new ApiError('balance_insufficient', { message: `The available balance is ${balance.available_cents} cents.` });
  if (pending < 0) throw new Error(`a movement would leave ${pending} cents held for ${balance.account_id}`);
  const seconds = Math.floor(at.getTime() / 1000);
  const change = lowBalanceChange(balance, available);
  const after: BalanceRecord = {
    ...balance,
    available_cents: available,
    pending_cents: pending,
    low_notified: change === 'fire' ? true : change === 'rearm' ? false : balance.low_notified,
    updated_at: seconds,
  };
  const transaction: TransactionRecord = {
    id: newId('balanceTransaction'),
    account_id: balance.account_id,
    environment: balance.environment,
    type: movement.type,
    amount_cents: movement.amount_cents,
    balance_after_cents: available,
    source: movement.source,
    description: movement.description,
    created_at: seconds,
  };
  await transactions(trx).insert(transaction);
  await saveBalance(trx, after);
  if (change === 'fire') await addLowBalanceEvent(trx, after, at);
  return { balance: after, transaction };
}

/** Changes held (`pending_cents`) without a movement of the available balance: a hold kept when its purchase is recorded. */
export async function settleHeld(trx: Knex.Transaction, balance: BalanceRecord, amount: number, at: Date): Promise<BalanceRecord> {
  const after = { ...balance, pending_cents: Math.max(0, balance.pending_cents - amount), updated_at: Math.floor(at.getTime() / 1000) };
  await saveBalance(trx, after);
  return after;
}

/** Sets the threshold (and whether the balance is in use, for a simulated one); a threshold crossed by the change fires at once. */
export async function configureBalance(
  trx: Knex.Transaction,
  balance: BalanceRecord,
  changes: { low_threshold_cents?: number | null | undefined; enforced?: boolean | undefined },
  at: Date,
): Promise<BalanceRecord> {
  const configured = {
    ...balance,
    ...(changes.low_threshold_cents !== undefined && { low_threshold_cents: changes.low_threshold_cents }),
    ...(changes.enforced !== undefined && { enforced: changes.enforced }),
  };
  const change = configured.enforced ? lowBalanceChange(configured, configured.available_cents) : configured.low_notified ? 'rearm' : 'none';
  const after: BalanceRecord = {
    ...configured,
    low_notified: change === 'fire' ? true : change === 'rearm' ? false : configured.low_notified,
    updated_at: Math.floor(at.getTime() / 1000),
  };
  await saveBalance(trx, after);
  if (change === 'fire') await addLowBalanceEvent(trx, after, at);
  return after;
}

async function saveBalance(trx: Knex.Transaction, balance: BalanceRecord): Promise<void> {
  await balances(trx).where({ account_id: balance.account_id, environment: balance.environment }).update({
    available_cents: balance.available_cents,
    pending_cents: balance.pending_cents,
    enforced: balance.enforced,
    low_threshold_cents: balance.low_threshold_cents,
    low_notified: balance.low_notified,
    updated_at: balance.updated_at,
  });
}

async function addLowBalanceEvent(trx: Knex.Transaction, balance: BalanceRecord, at: Date): Promise<void> {
  await addEvent(
    trx,
    {
      type: 'balance.low',
      environment: balance.environment,
      accountId: balance.account_id,
      data: { object: toPublicBalance(balance.environment, balance), threshold_cents: balance.low_threshold_cents ?? 0 },
    },
    at,
  );
}

/** The position after which the next page of transactions starts: the last one shown (its place in the ledger). */
export interface TransactionPosition {
  seq: number;
}

/** A page of one balance's transactions, newest first, optionally of one type or source, with each one's position. */
export async function transactionPage(
  db: Knex,
  owner: { accountId: string; environment: Environment },
  filter: { type?: BalanceTransactionType | undefined; source?: string | undefined },
  after: TransactionPosition | undefined,
  limit: number,
): Promise<{ transaction: TransactionRecord; position: TransactionPosition }[]> {
  const query = transactions(db).select('*').where({ account_id: owner.accountId, environment: owner.environment }).orderBy('seq', 'desc').limit(limit);
  if (filter.type) query.where('type', filter.type);
  if (filter.source) query.where('source', filter.source);
  if (after) query.where('seq', '<', after.seq);
  return ((await query) as TransactionRow[]).map((row) => ({ transaction: toTransaction(row), position: { seq: Number(row.seq) } }));
}

/** Every transaction of one balance in the order made (for audits and tests of the ledger's sums). */
export async function allTransactions(db: Knex, accountId: string, environment: Environment): Promise<TransactionRecord[]> {
  const rows = (await transactions(db).select('*').where({ account_id: accountId, environment }).orderBy('seq', 'asc')) as TransactionRow[];
  return rows.map(toTransaction);
}
