import type { WebhookEndpoint } from '@connectivity/contracts';
import type { Caller, Database } from '@connectivity/platform';
import { findEndpoint } from '../db/endpoints-repository.ts';
import { assertOwnEndpoint, presentEndpoint, type EndpointRecord } from '../domain/endpoint.ts';

/** The caller's endpoint: 404 for another account's or an unknown id, 403 across environments. */
export async function findOwnEndpoint(db: Database, caller: Caller, id: string): Promise<EndpointRecord> {
  return assertOwnEndpoint(await findEndpoint(db.knex, caller.accountId, id), caller, id);
}

/** GET /v1/webhooks/{id}. */
export async function getWebhook(db: Database, caller: Caller, id: string): Promise<WebhookEndpoint> {
  return presentEndpoint(await findOwnEndpoint(db, caller, id));
}
