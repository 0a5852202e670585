import type { List, WebhookAttempt } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec, type Database } from '@connectivity/platform';
import { z } from 'zod';
import { listAttempts } from '../db/deliveries-repository.ts';
import { presentAttempt } from '../domain/attempt.ts';
import { findOwnEndpoint } from './get-webhook.ts';

const idPosition = z.object({ i: z.string() });

/** GET /v1/webhooks/{id}/deliveries: the attempts to the caller's endpoint, newest first, with a cursor bound to it. */
export async function listWebhookDeliveries(
  db: Database,
  cursors: CursorCodec,
  caller: Caller,
  id: string,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<WebhookAttempt>> {
  const endpoint = await findOwnEndpoint(db, caller, id);
  const binding = { list: 'webhook_deliveries', account: caller.accountId, environment: caller.environment, endpoint: endpoint.id };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, idPosition).i;
  const attempts = await listAttempts(db.knex, endpoint.id, after, query.limit + 1);
  return toPage(attempts.map(presentAttempt), query.limit, (last) => cursors.encode({ i: last.id }, binding));
}
