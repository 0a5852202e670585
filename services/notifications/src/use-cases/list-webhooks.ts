import type { List, WebhookEndpoint } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec, type Database } from '@connectivity/platform';
import { z } from 'zod';
import { listEndpoints } from '../db/endpoints-repository.ts';
import { presentEndpoint } from '../domain/endpoint.ts';

const idPosition = z.object({ i: z.string() });

/** GET /v1/webhooks: the caller's endpoints in its environment, with a cursor bound to both. */
export async function listWebhooks(
  db: Database,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<WebhookEndpoint>> {
  const binding = { list: 'webhooks', account: caller.accountId, environment: caller.environment };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, idPosition).i;
  const endpoints = await listEndpoints(db.knex, { accountId: caller.accountId, environment: caller.environment }, after, query.limit + 1);
  return toPage(endpoints.map(presentEndpoint), query.limit, (last) => cursors.encode({ i: last.id }, binding));
}
