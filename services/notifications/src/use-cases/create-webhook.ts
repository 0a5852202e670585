import type { WebhookEndpointWithSecret } from '@connectivity/contracts';
import { newId, type Caller, type Database, type IdempotencyClaim } from '@connectivity/platform';
import { acceptedEndpointUrl, type ResolveHost } from '../clients/public-host.ts';
import { EndpointLimitReached, insertEndpoint, isUniqueViolation } from '../db/endpoints-repository.ts';
import { normalizeEnabledEvents } from '../domain/enabled-events.ts';
import { duplicateUrl, NO_STORE, presentEndpoint, tooManyEndpoints, type EndpointRecord } from '../domain/endpoint.ts';
import type { SecretBox } from '../domain/secret-box.ts';
import { newWebhookSecret } from '../domain/webhook-secret.ts';

export interface EndpointDeps {
  db: Database;
  resolveHost: ResolveHost;
  /** WEBHOOK_ALLOW_PRIVATE: test endpoints may point anywhere. */
  allowPrivate: boolean;
}

export interface CreateWebhookDeps extends EndpointDeps {
  secrets: SecretBox;
  /** Endpoints (not deleted) an account may have in one environment. */
  maxEndpoints: number;
}

/**
 * POST /v1/webhooks: creates an endpoint; the plain signing secret is returned this once and
 * stored only sealed. The answer is recorded with the endpoint (the claim), so a retry gets the
 * same endpoint.
 */
export async function createWebhook(
  deps: CreateWebhookDeps,
  caller: Caller,
  input: { url: string; enabled_events: string[]; description?: string | undefined },
  claim: IdempotencyClaim,
): Promise<WebhookEndpointWithSecret> {
  const url = await acceptedEndpointUrl(input.url, caller.environment, deps);
  const now = Math.floor(Date.now() / 1000);
  const endpoint: EndpointRecord = {
    id: newId('webhookEndpoint'),
    accountId: caller.accountId,
    environment: caller.environment,
    url,
    description: input.description ?? null,
    enabledEvents: normalizeEnabledEvents(input.enabled_events),
    disabled: false,
    disabledReason: null,
    createdAt: now,
    updatedAt: now,
  };
  const secret = newWebhookSecret();
  const sealed = deps.secrets.seal(secret, endpoint.id);
  try {
    return await claim.answerInTransaction(
      deps.db.knex,
      201,
      async (trx) => {
        await insertEndpoint(trx, endpoint, sealed, deps.maxEndpoints);
        return { ...presentEndpoint(endpoint), secret };
      },
      NO_STORE,
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateUrl(url);
    if (err instanceof EndpointLimitReached) throw tooManyEndpoints(deps.maxEndpoints, caller.environment);
    throw err;
  }
}
