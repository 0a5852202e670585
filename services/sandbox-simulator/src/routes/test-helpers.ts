import { testHelperRoutes } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { InventoryClient } from '../clients/inventory.ts';
import { simulateUsage } from '../use-cases/simulate-usage.ts';
import { triggerTestError } from '../use-cases/trigger-test-error.ts';

const s = initServer();

/** POST /v1/test/usage and POST /v1/test/error. */
export function testHelpersRouter(deps: { inventory: InventoryClient }) {
  return s.router(testHelperRoutes, {
    simulateUsage: async ({ body, headers, res }) => {
      const { esim, replayed } = await simulateUsage(deps, getCaller(res), body, headers['idempotency-key']);
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      return { status: 200, body: esim };
    },
    triggerTestError: ({ body, res }) => {
      throw triggerTestError(getCaller(res), body);
    },
  });
}
