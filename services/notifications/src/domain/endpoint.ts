import { ApiError, type Environment, type WebhookEndpoint, type WebhookEventSelector } from '@connectivity/contracts';

/** A webhook endpoint as the service keeps it (its sealed secret stays in the repository). */
export interface EndpointRecord {
  id: string;
  accountId: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabledEvents: string[];
  disabled: boolean;
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The public endpoint object; the secret is never part of it (only the create answer adds it). */
export function presentEndpoint(endpoint: EndpointRecord): WebhookEndpoint {
  return {
    object: 'webhook_endpoint',
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents as WebhookEventSelector[],
    disabled: endpoint.disabled,
    disabled_reason: endpoint.disabledReason,
    environment: endpoint.environment,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

/** The answer shows a secret: nobody but this service keeps it (sealed), not even the gateway. */
export const NO_STORE = { 'cache-control': 'no-store' };

export const endpointNotFound = (id: string) => new ApiError('resource_not_found', { param: 'id', message: `No webhook endpoint ${id}.` });

/**
 * The caller may reach the endpoint: another account's (or an unknown id) is 404, the same
 * account's in the other environment is 403 (record 0254).
 */
export function assertOwnEndpoint(endpoint: EndpointRecord | undefined, caller: { environment: Environment }, id: string): EndpointRecord {
  if (!endpoint) throw endpointNotFound(id);
  if (endpoint.environment !== caller.environment) {
    throw new ApiError(caller.environment === 'test' ? 'test_key_live_resource' : 'live_key_test_resource', {
      param: 'id',
      message: `Webhook endpoint ${id} belongs to the ${endpoint.environment} environment; use the ${endpoint.environment} key.`,
    });
  }
  return endpoint;
}

export const duplicateUrl = (url: string) =>
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
// A quota of the account, not a fault of the request: quota_exceeded names the limit (record 0212).
export const tooManyEndpoints = (limit: number, environment: Environment) =>
  new ApiError('quota_exceeded', {
    message:
      `Quota exceeded: an account may have at most ${limit} webhook endpoints in the ${environment} environment ` +
      `(the limit WEBHOOK_MAX_ENDPOINTS is ${limit}); delete one (or subscribe an existing one to more events) before creating another.`,
  });
