import type { Caller, Database, IdempotencyClaim } from '@connectivity/platform';
import { deleteEndpoint } from '../db/endpoints-repository.ts';
import { findOwnEndpoint } from './get-webhook.ts';

/** DELETE /v1/webhooks/{id}: the answer is recorded with the deletion. */
export async function deleteWebhook(db: Database, caller: Caller, id: string, claim: IdempotencyClaim) {
  await findOwnEndpoint(db, caller, id);
  return claim.answerInTransaction(db.knex, 200, async (trx) => {
    await deleteEndpoint(trx, id, Math.floor(Date.now() / 1000));
    return { object: 'webhook_endpoint' as const, id, deleted: true as const };
  });
}
