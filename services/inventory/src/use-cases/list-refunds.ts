import type { List, Refund, RefundStatus } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { refundPage } from '../db/refund-repository.ts';
import { toPublicRefund } from '../domain/refund.ts';

const positionSchema = z.object({ id: z.string().min(1) });

/** GET /v1/refunds: newest first, with a cursor bound to the account, environment and filters. */
export async function listRefunds(
  knex: Knex,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number; esim?: string | undefined; status?: RefundStatus | undefined },
): Promise<List<Refund>> {
  const filter = { esim: query.esim, status: query.status };
  const binding = { list: 'refunds', accountId: caller.accountId, environment: caller.environment, ...filter };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await refundPage(knex, caller, filter, after, query.limit + 1);
  return toPage(records.map(toPublicRefund), query.limit, (last) => cursors.encode({ id: last.id }, binding));
}
