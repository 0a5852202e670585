import type { BalanceTransactionType } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { assertCanPay } from '../domain/balance.ts';
import { lockBalance, postMovement } from './ledger-repository.ts';

/** A sandbox purchase paid from the simulated balance: an order or a top-up (records 0157, 0242). */
export interface SimulatedPayment {
  type: Extract<BalanceTransactionType, 'order' | 'topup'>;
  amount_cents: number;
  source: string;
  description: string;
}

/**
 * Takes a sandbox purchase's price from the account's simulated balance, if one is in use (402 when it
 * cannot pay), under the balance's row lock in the caller's transaction; without one, nothing is charged.
 */
export async function payFromSimulatedBalance(trx: Knex.Transaction, caller: Caller, payment: SimulatedPayment, at: Date): Promise<void> {
  const balance = await lockBalance(trx, caller.accountId, 'test', { create: false, now: Math.floor(at.getTime() / 1000) });
  if (!balance?.enforced) return;
  assertCanPay(balance.available_cents, payment.amount_cents, 'test');
  await postMovement(trx, balance, { type: payment.type, amount_cents: -payment.amount_cents, source: payment.source, description: payment.description }, at);
}
