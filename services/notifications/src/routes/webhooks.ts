import { webhookRoutes } from '@connectivity/contracts';
import { getIdentity, toPage, tsRestOptions, type CursorCodec } from '@connectivity/platform';
import { initServer, createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { z } from 'zod';
import { listAttempts } from '../db/deliveries-repository.ts';
import { listEndpoints } from '../db/endpoints-repository.ts';
import {
  changeEndpoint,
  createEndpoint,
  NO_STORE,
  getOwnEndpoint,
  removeEndpoint,
  type CreateEndpointDeps,
} from '../use-cases/webhook-endpoints.ts';
import { presentAttempt, presentEndpoint } from './present.ts';

const idPosition = z.object({ i: z.string() });

export interface WebhookRouteDeps extends CreateEndpointDeps {
  cursors: CursorCodec;
}

/** The /v1/webhooks noun of DECISIONS.md. */
export function mountWebhookRoutes(app: Express, deps: WebhookRouteDeps): void {
  const s = initServer();
  const router = s.router(webhookRoutes, {
    createWebhook: async ({ body, res }) => {
      const created = await createEndpoint(deps, getIdentity(res), body);
      for (const [name, value] of Object.entries(NO_STORE)) res.setHeader(name, value);
      return { status: 201, body: created };
    },
    listWebhooks: async ({ query, res }) => {
      const identity = getIdentity(res);
      const scope = { accountId: identity.accountId, environment: identity.environment };
      const binding = { list: 'webhooks', account: scope.accountId, environment: scope.environment };
      const after = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, idPosition).i;
      const endpoints = await listEndpoints(deps.db.knex, scope, after, query.limit + 1);
      return {
        status: 200,
        body: toPage(endpoints.map(presentEndpoint), query.limit, (last) => deps.cursors.encode({ i: last.id }, binding)),
      };
    },
    getWebhook: async ({ params, res }) => {
      const endpoint = await getOwnEndpoint(deps, getIdentity(res), params.id);
      return { status: 200, body: presentEndpoint(endpoint) };
    },
    updateWebhook: async ({ params, body, res }) => ({ status: 200, body: await changeEndpoint(deps, getIdentity(res), params.id, body) }),
    deleteWebhook: async ({ params, res }) => ({ status: 200, body: await removeEndpoint(deps, getIdentity(res), params.id) }),
    listWebhookDeliveries: async ({ params, query, res }) => {
      const identity = getIdentity(res);
      const endpoint = await getOwnEndpoint(deps, identity, params.id);
      const binding = { list: 'webhook_deliveries', account: identity.accountId, environment: identity.environment, endpoint: endpoint.id };
      const after = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, idPosition).i;
      const attempts = await listAttempts(deps.db.knex, endpoint.id, after, query.limit + 1);
      return {
        status: 200,
        body: toPage(attempts.map(presentAttempt), query.limit, (last) => deps.cursors.encode({ i: last.id }, binding)),
      };
    },
  });
  createExpressEndpoints(webhookRoutes, router, app, tsRestOptions);
}
