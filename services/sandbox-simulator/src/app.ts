import { testHelperRoutes } from '@connectivity/contracts';
import { createServiceApp, serviceFrame, tsRestOptions } from '@connectivity/platform';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { SCHEMA } from './db/schema.ts';
import { testHelpersRouter } from './routes/test-helpers.ts';
import type { SimulatorContext } from './context.ts';

/** The sandbox-simulator HTTP app; never listens, so tests drive it with supertest. */
export function createApp(context: SimulatorContext): Express {
  return createServiceApp({
    ...serviceFrame(context),
    // POST /v1/test/error changes nothing but is answered the same to a retry, marked replayed,
    // as every mutating call is; POST /v1/test/usage is also recorded by inventory, which makes the change.
    idempotency: { knex: context.db.knex, schema: SCHEMA, leaseMs: context.config.IDEMPOTENCY_LEASE_MS },
    routes: (app) => {
      createExpressEndpoints(testHelperRoutes, testHelpersRouter(context), app, tsRestOptions);
    },
  });
}
