import { contract } from '@connectivity/contracts';
import { claimOf, getCaller, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { NO_STORE } from '../domain/endpoint.ts';
import { createWebhook, type CreateWebhookDeps } from '../use-cases/create-webhook.ts';
import { deleteWebhook } from '../use-cases/delete-webhook.ts';
import { getWebhook } from '../use-cases/get-webhook.ts';
import { listWebhookDeliveries } from '../use-cases/list-webhook-deliveries.ts';
import { listWebhooks } from '../use-cases/list-webhooks.ts';
import { updateWebhook } from '../use-cases/update-webhook.ts';

const s = initServer();

export type WebhookRoutesDeps = CreateWebhookDeps & { cursors: CursorCodec };

/** The /v1/webhooks noun (record 0253). */
export function webhookRouter(deps: WebhookRoutesDeps) {
  return s.router(contract.webhooks, {
    createWebhook: async ({ body, res }) => {
      const created = await createWebhook(deps, getCaller(res), body, claimOf(res));
      for (const [name, value] of Object.entries(NO_STORE)) res.setHeader(name, value);
      return { status: 201, body: created };
    },
    listWebhooks: async ({ query, res }) => ({ status: 200, body: await listWebhooks(deps.db, deps.cursors, getCaller(res), query) }),
    getWebhook: async ({ params, res }) => ({ status: 200, body: await getWebhook(deps.db, getCaller(res), params.id) }),
    updateWebhook: async ({ params, body, res }) => ({ status: 200, body: await updateWebhook(deps, getCaller(res), params.id, body, claimOf(res)) }),
    deleteWebhook: async ({ params, res }) => ({ status: 200, body: await deleteWebhook(deps.db, getCaller(res), params.id, claimOf(res)) }),
    listWebhookDeliveries: async ({ params, query, res }) => ({
      status: 200,
      body: await listWebhookDeliveries(deps.db, deps.cursors, getCaller(res), params.id, query),
    }),
  });
}
