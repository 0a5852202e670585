import { ApiError, type Environment, type WebhookEndpoint, type WebhookEndpointWithSecret } from '@connectivity/contracts';
import { answerInTransaction, newId, type Database, type Identity } from '@connectivity/platform';
import { normalizeEnabledEvents } from '../domain/enabled-events.ts';
import { checkEndpointUrl, egressPolicy, notPublicUrl } from '../domain/endpoint-url.ts';
import { newWebhookSecret } from '../domain/webhook-secret.ts';
import {
  deleteEndpoint,
  EndpointLimitReached,
  findEndpoint,
  insertEndpoint,
  isUniqueViolation,
  updateEndpoint,
  type EndpointChanges,
  type EndpointRecord,
} from '../db/endpoints-repository.ts';
import { checkPublicHost, type ResolveHost } from '../delivery/public-host.ts';
import { presentEndpoint } from '../routes/present.ts';
import type { SecretBox } from '../secrets/secret-box.ts';

export interface EndpointDeps {
  db: Database;
  resolveHost: ResolveHost;
  /** WEBHOOK_ALLOW_PRIVATE: test endpoints may point anywhere. */
  allowPrivate: boolean;
}

export interface CreateEndpointDeps extends EndpointDeps {
  secrets: SecretBox;
  /** Endpoints (not deleted) an account may have in one environment. */
  maxEndpoints: number;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The URL an endpoint may have in `environment`: the static rules, then under the address policy
 * the DNS answer (the same refusal whatever the name resolved to).
 */
async function acceptedUrl(deps: EndpointDeps, raw: string, environment: Environment): Promise<string> {
  const policy = egressPolicy(environment, deps.allowPrivate);
  const url = checkEndpointUrl(raw, environment, policy);
  if (policy === 'public' && !(await checkPublicHost(url, deps.resolveHost)).ok) throw notPublicUrl();
  return url.toString();
}

const duplicateUrl = (url: string) =>
  new ApiError('already_exists', {
    param: 'url',
    message: `An endpoint for ${url} already exists in this environment; update it instead of creating another.`,
  });

/**
 * The cap on endpoints is a limit of the account, not a clash with one resource, so it is the
 * request that is refused (400 `invalid_parameter`, no `param`: no one field is at fault), as
 * Stripe answers its own endpoint limit; `already_exists` would send a client looking for a
 * duplicate to update.
 */
const tooManyEndpoints = (limit: number, environment: Environment) =>
  new ApiError('invalid_parameter', {
    message: `An account may have at most ${limit} webhook endpoints in the ${environment} environment; delete one (or subscribe an existing one to more events) before creating another.`,
  });

/** The answer shows a secret: nobody but this service keeps it (sealed), not even the gateway. */
export const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Creates an endpoint; the plain signing secret is returned this once and stored only sealed.
 * The answer is recorded with the endpoint (idempotency), so a retry gets the same endpoint.
 */
export async function createEndpoint(
  deps: CreateEndpointDeps,
  identity: Identity,
  input: { url: string; enabled_events: string[]; description?: string | undefined },
): Promise<WebhookEndpointWithSecret> {
  const url = await acceptedUrl(deps, input.url, identity.environment);
  const now = nowSeconds();
  const endpoint: EndpointRecord = {
    id: newId('webhookEndpoint'),
    accountId: identity.accountId,
    environment: identity.environment,
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
    return await answerInTransaction(
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
    if (err instanceof EndpointLimitReached) throw tooManyEndpoints(deps.maxEndpoints, identity.environment);
    throw err;
  }
}

/**
 * The caller's endpoint: another account's (or an unknown id) is 404, the same account's in the
 * other environment is 403 (DECISIONS.md "Authentication and keys").
 */
export async function getOwnEndpoint(deps: Pick<EndpointDeps, 'db'>, identity: Identity, id: string): Promise<EndpointRecord> {
  const endpoint = await findEndpoint(deps.db.knex, identity.accountId, id);
  if (!endpoint) throw new ApiError('resource_not_found', { param: 'id', message: `No webhook endpoint ${id}.` });
  if (endpoint.environment !== identity.environment) {
    throw new ApiError(identity.environment === 'test' ? 'test_key_live_resource' : 'live_key_test_resource', {
      param: 'id',
      message: `Webhook endpoint ${id} belongs to the ${endpoint.environment} environment; use the ${endpoint.environment} key.`,
    });
  }
  return endpoint;
}

export async function changeEndpoint(
  deps: EndpointDeps,
  identity: Identity,
  id: string,
  input: { url?: string | undefined; enabled_events?: string[] | undefined; description?: string | undefined; disabled?: boolean | undefined },
): Promise<WebhookEndpoint> {
  const endpoint = await getOwnEndpoint(deps, identity, id);
  const changes: EndpointChanges = {};
  if (input.url !== undefined) changes.url = await acceptedUrl(deps, input.url, endpoint.environment);
  if (input.enabled_events !== undefined) changes.enabledEvents = normalizeEnabledEvents(input.enabled_events);
  if (input.description !== undefined) changes.description = input.description;
  if (input.disabled !== undefined) changes.disabled = input.disabled;
  try {
    return await answerInTransaction(deps.db.knex, 200, async (trx) => {
      await updateEndpoint(trx, id, changes, nowSeconds());
      const changed = await findEndpoint(trx, identity.accountId, id);
      if (!changed) throw new ApiError('resource_not_found', { param: 'id', message: `No webhook endpoint ${id}.` });
      return presentEndpoint(changed);
    });
  } catch (err) {
    if (isUniqueViolation(err) && changes.url !== undefined) throw duplicateUrl(changes.url);
    throw err;
  }
}

export async function removeEndpoint(deps: Pick<EndpointDeps, 'db'>, identity: Identity, id: string) {
  await getOwnEndpoint(deps, identity, id);
  return answerInTransaction(deps.db.knex, 200, async (trx) => {
    await deleteEndpoint(trx, id, nowSeconds());
    return { object: 'webhook_endpoint' as const, id, deleted: true as const };
  });
}
