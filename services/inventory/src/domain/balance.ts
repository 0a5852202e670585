import { ApiError, type Balance, type BalanceTransaction, type BalanceTransactionType, type Environment } from '@connectivity/contracts';

/** A balance as inventory keeps it (one per account and environment; record 0156). */
export interface BalanceRecord {
  account_id: string;
  environment: Environment;
  available_cents: number;
  pending_cents: number;
  /** Test: a simulated balance is set and sandbox orders are paid from it. Live: always. */
  enforced: boolean;
  low_threshold_cents: number | null;
  /** `balance.low` was sent and the balance has not stood at or above the threshold since. */
  low_notified: boolean;
  updated_at: number;
}

/** A live balance never set by the operator: nothing to spend. */
export const emptyBalance = (accountId: string, environment: Environment, now: number): BalanceRecord => ({
  account_id: accountId,
  environment,
  available_cents: 0,
  pending_cents: 0,
  enforced: environment === 'live',
  low_threshold_cents: null,
  low_notified: false,
  updated_at: now,
});

/** What GET /v1/balance shows; a test balance not in use shows a null `available_cents`. */
export function toPublicBalance(environment: Environment, balance: BalanceRecord | undefined): Balance {
  const inUse = balance !== undefined && balance.enforced;
  return {
    object: 'balance',
    environment,
    available_cents: inUse ? balance.available_cents : environment === 'live' ? 0 : null,
    pending_cents: balance?.pending_cents ?? 0,
    currency: 'USD',
    low_balance_threshold_cents: balance?.low_threshold_cents ?? null,
    simulated: environment === 'test',
  };
}

/** One movement to write: its type, signed amount, what caused it, and how it changes what is held. */
export interface Movement {
  type: BalanceTransactionType;
  amount_cents: number;
  /** Change of `pending_cents`: a hold taken (+) or settled (-). */
  pending_delta?: number;
  source: string | null;
  description: string | null;
}

export interface TransactionRecord extends Omit<BalanceTransaction, 'object' | 'currency'> {
  account_id: string;
  environment: Environment;
}

export const toPublicTransaction = ({ account_id: _account, environment: _environment, ...transaction }: TransactionRecord): BalanceTransaction => ({
  object: 'balance_transaction',
  ...transaction,
  currency: 'USD',
});

/**
 * What a movement does to the low-balance notice (once per crossing): `fire` when the balance falls
 * below the threshold and no notice was sent since it last stood at or above it; `rearm` when it
 * stands at or above it again (or the threshold is gone).
 */
export function lowBalanceChange(balance: Pick<BalanceRecord, 'low_threshold_cents' | 'low_notified'>, availableAfter: number): 'fire' | 'rearm' | 'none' {
  const threshold = balance.low_threshold_cents;
  if (threshold !== null && availableAfter < threshold) return balance.low_notified ? 'none' : 'fire';
  return balance.low_notified ? 'rearm' : 'none';
}

/** The balance can pay `total` now (holds already taken are not available). */
export function assertCanPay(available: number, total: number, environment: Environment): void {
  if (available >= total) return;
  const which = environment === 'live' ? 'live balance' : 'simulated balance (POST /v1/test/balance)';
  throw new ApiError('balance_insufficient', { message: `The order costs ${total} cents; the available ${which} is ${available} cents.` });
}
