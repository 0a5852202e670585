import { contract, internalAccountsContract, internalContract, internalInventoryReleasesContract } from '@connectivity/contracts';
import { createCursorCodec, createServiceApp, operatorRouteOptions, serviceFrame, statementBatcher, tsRestOptions, type Logger, type ServiceRuntime } from '@connectivity/platform';
import type { Express } from 'express';
import { createCatalogueClient } from './clients/catalogue-client.ts';
import type { Config } from './config.ts';
import { SCHEMA } from './db/schema.ts';
import { internalAccountsRouter } from './routes/internal-accounts.ts';
import { internalReleasesRouter } from './routes/internal-releases.ts';
import { internalUsageRouter } from './routes/internal-usage.ts';
import { esimRouter } from './routes/esims.ts';
import { testClockRouter } from './routes/test-clocks.ts';
import { createExpressEndpoints } from '@ts-rest/express';

export interface AppDeps extends ServiceRuntime {
  config: Config;
}

/** The typed client of catalogue the configuration names. */
export const catalogueClientFromConfig = (config: Config, logger: Logger) =>
  createCatalogueClient({ baseUrl: config.CATALOGUE_URL, internalToken: config.INTERNAL_TOKEN ?? '', timeoutMs: config.CATALOGUE_TIMEOUT_MS, logger });

/** The inventory HTTP app; never listens, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const knex = deps.db.knex;
  const catalogue = catalogueClientFromConfig(config, logger);
  const cursors = createCursorCodec(config.CURSOR_SECRET);
  // Sandbox orders that arrive while one is being written share the next statement.
  const orders = statementBatcher(knex, { name: 'sandbox orders', max: 16 });

  return createServiceApp({
    ...serviceFrame(deps),
    idempotency: { knex, schema: SCHEMA, leaseMs: config.IDEMPOTENCY_LEASE_MS },
    routes: (app) => {
      createExpressEndpoints(contract.esim, esimRouter({ knex, catalogue, logger, cursors, orders }), app, tsRestOptions);
      createExpressEndpoints(contract.testClocks, testClockRouter({ knex, logger, cursors }), app, tsRestOptions);
      createExpressEndpoints(internalContract.inventory, internalUsageRouter({ knex }), app, tsRestOptions);
      createExpressEndpoints(internalAccountsContract, internalAccountsRouter(knex), app, operatorRouteOptions);
      createExpressEndpoints(
        internalInventoryReleasesContract,
        internalReleasesRouter({ knex, cursors }),
        app,
        operatorRouteOptions,
      );
    },
  });
}
