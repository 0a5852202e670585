import type { WebhookEndpoint } from '@connectivity/contracts';
import type { Caller, IdempotencyClaim } from '@connectivity/platform';
import { acceptedEndpointUrl } from '../clients/public-host.ts';
import { findEndpoint, isUniqueViolation, updateEndpoint, type EndpointChanges } from '../db/endpoints-repository.ts';
import { normalizeEnabledEvents } from '../domain/enabled-events.ts';
import { duplicateUrl, endpointNotFound, presentEndpoint } from '../domain/endpoint.ts';
import type { EndpointDeps } from './create-webhook.ts';
import { findOwnEndpoint } from './get-webhook.ts';

/** PATCH /v1/webhooks/{id}: a new URL passes the same checks as a new endpoint's; the answer is recorded with the change. */
export async function updateWebhook(
  deps: EndpointDeps,
  caller: Caller,
  id: string,
  input: { url?: string | undefined; enabled_events?: string[] | undefined; description?: string | undefined; disabled?: boolean | undefined },
  claim: IdempotencyClaim,
): Promise<WebhookEndpoint> {
  const endpoint = await findOwnEndpoint(deps.db, caller, id);
  const changes: EndpointChanges = {};
  if (input.url !== undefined) changes.url = await acceptedEndpointUrl(input.url, endpoint.environment, deps);
  if (input.enabled_events !== undefined) changes.enabledEvents = normalizeEnabledEvents(input.enabled_events);
  if (input.description !== undefined) changes.description = input.description;
  if (input.disabled !== undefined) changes.disabled = input.disabled;
  try {
    return await claim.answerInTransaction(deps.db.knex, 200, async (trx) => {
      await updateEndpoint(trx, id, changes, Math.floor(Date.now() / 1000));
      const changed = await findEndpoint(trx, caller.accountId, id);
      if (!changed) throw endpointNotFound(id);
      return presentEndpoint(changed);
    });
  } catch (err) {
    if (isUniqueViolation(err) && changes.url !== undefined) throw duplicateUrl(changes.url);
    throw err;
  }
}
