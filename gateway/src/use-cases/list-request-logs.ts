import type { RequestLog } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec, type ListPage } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { listRequestLogs as listRows } from '../db/request-log-repository.ts';
import type { PageQuery } from '../domain/catalogue-page.ts';

const timePosition = z.object({ t: z.number().int(), i: z.string().min(1) });

/**
 * GET /v1/request_logs: the caller's recent requests in its environment, newest first. Requests
 * older than the retention are never listed, whether or not the purge has reached them.
 */
export async function listRequestLogs(
  deps: { knex: Knex; cursors: CursorCodec; retentionMs: number },
  caller: Caller,
  query: PageQuery,
): Promise<ListPage<RequestLog>> {
  const binding = { list: 'request_logs', account: caller.accountId, environment: caller.environment };
  const after = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, timePosition);
  const rows = await listRows(deps.knex, caller, {
    after: after && { timeMs: after.t, id: after.i },
    since: new Date(Date.now() - deps.retentionMs),
    limit: query.limit + 1,
  });
  const page = toPage(rows, query.limit, (last) => deps.cursors.encode({ t: last.timeMs, i: last.row.id }, binding));
  return { ...page, data: page.data.map(({ row }) => row) };
}
