import type { BalanceTransaction, BalanceTransactionType, List } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { transactionPage } from '../db/ledger-repository.ts';
import { toPublicTransaction } from '../domain/balance.ts';

const positionSchema = z.object({ seq: z.number().int() });

/** GET /v1/balance_transactions: newest first, with a cursor bound to the account, environment and filters. */
export async function listBalanceTransactions(
  knex: Knex,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number; type?: BalanceTransactionType | undefined; source?: string | undefined },
): Promise<List<BalanceTransaction>> {
  const filter = { type: query.type, source: query.source };
  const binding = { list: 'balance_transactions', accountId: caller.accountId, environment: caller.environment, ...filter };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const rows = await transactionPage(knex, caller, filter, after, query.limit + 1);
  const positions = new Map(rows.map((row) => [row.transaction.id, row.position]));
  return toPage(
    rows.map((row) => toPublicTransaction(row.transaction)),
    query.limit,
    (last) => cursors.encode(positions.get(last.id) ?? { seq: 0 }, binding),
  );
}
