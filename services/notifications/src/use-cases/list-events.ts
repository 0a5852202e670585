import type { ApiEvent, List } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec, type Database } from '@connectivity/platform';
import { z } from 'zod';
import { listEvents as listEventRows } from '../db/events-repository.ts';

const positionSchema = z.object({ t: z.number().int(), i: z.string() });

/** GET /v1/events: the caller's events in its environment, newest first, with a cursor bound to both. */
export async function listEvents(
  db: Database,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<ApiEvent>> {
  const scope = { accountId: caller.accountId, environment: caller.environment };
  const binding = { list: 'events', account: scope.accountId, environment: scope.environment };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const events = await listEventRows(db.knex, scope, after && { timeMs: after.t, id: after.i }, query.limit + 1);
  return toPage(events, query.limit, (last) => cursors.encode({ t: Date.parse(last.time), i: last.id }, binding));
}
