import type { BalanceTransaction } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { lockBalance, postMovement } from '../db/ledger-repository.ts';
import { toPublicTransaction } from '../domain/balance.ts';

/** POST /internal/accounts/{id}/credits: the operator adds money to the live balance (a `credit`). */
export async function creditAccount(
  knex: Knex,
  accountId: string,
  input: { amount_cents: number; description?: string | undefined },
  now = new Date(),
): Promise<BalanceTransaction> {
  return knex.transaction(async (trx) => {
    const balance = await lockBalance(trx, accountId, 'live', { create: true, now: Math.floor(now.getTime() / 1000) });
    if (!balance) throw new Error('a live balance could not be made');
    const { transaction } = await postMovement(
      trx,
      balance,
      { type: 'credit', amount_cents: input.amount_cents, source: null, description: input.description ?? 'Credit by the operator' },
      now,
    );
    return toPublicTransaction(transaction);
  });
}
