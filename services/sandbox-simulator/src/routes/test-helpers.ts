import { testHelperRoutes } from '@connectivity/contracts';
import { getIdentity, tsRestOptions } from '@connectivity/platform';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Express } from 'express';
import { chosenError } from '../domain/chosen-error.ts';
import { assertTestEnvironment } from '../domain/sandbox-only.ts';
import type { InventoryClient } from '../inventory/inventory-client.ts';

/** POST /v1/test/usage and POST /v1/test/error. */
export function mountTestHelperRoutes(app: Express, deps: { inventory: InventoryClient }): void {
  const s = initServer();
  const router = s.router(testHelperRoutes, {
    simulateUsage: async ({ body, headers, res }) => {
      const identity = getIdentity(res);
      assertTestEnvironment(identity.environment);
      const { esim, replayed } = await deps.inventory.recordUsage(identity, body.esim, body.bytes, headers['idempotency-key']);
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      return { status: 200, body: esim };
    },
    triggerTestError: ({ body, res }) => {
      assertTestEnvironment(getIdentity(res).environment);
      throw chosenError(body);
    },
  });
  createExpressEndpoints(testHelperRoutes, router, app, tsRestOptions);
}
