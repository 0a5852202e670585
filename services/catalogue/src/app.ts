import { contract, internalCatalogueAccountsContract, internalContract, internalSupplyContract } from '@connectivity/contracts';
import { createCursorCodec, createServiceApp, operatorRouteOptions, serviceFrame, tsRestOptions, type ServiceRuntime } from '@connectivity/platform';
import type { Express } from 'express';
import { createCatalogue } from './catalogue.ts';
import type { Config } from './config.ts';
import { createBundleRepository } from './db/bundle-repository.ts';
import { createSandboxBundles } from './db/sandbox-bundles.ts';
import { createLiveOrderingRepository } from './db/live-ordering-repository.ts';
import { internalBundlesRouter } from './routes/internal-bundles.ts';
import { internalLiveOrderingRouter } from './routes/internal-live-ordering.ts';
import { internalSupplyRouter } from './routes/internal-supply.ts';
import { listBundlesRouter } from './routes/list-bundles.ts';
import { createExpressEndpoints } from '@ts-rest/express';
import { createHttpSupplier } from './supplier/http-supplier.ts';
import { createSimulatedSupplier } from './supplier/simulated-supplier.ts';
import type { Supplier } from './supplier/types.ts';
import { unconfiguredSupplier } from './supplier/unconfigured-supplier.ts';

export interface AppDeps extends ServiceRuntime {
  config: Config;
}

/** The live supplier adapter the configuration names, or the unconfigured one. */
export function liveSupplierFromConfig(config: Config, onBreakerChange?: (state: 'open' | 'closed') => void): Supplier {
  if (!config.SUPPLIER_URL || !config.SUPPLIER_API_KEY) return unconfiguredSupplier;
  return createHttpSupplier({
    baseUrl: config.SUPPLIER_URL,
    apiKey: config.SUPPLIER_API_KEY,
    timeoutMs: config.SUPPLIER_TIMEOUT_MS,
    retries: config.SUPPLIER_RETRIES,
    breakerThreshold: config.SUPPLIER_BREAKER_THRESHOLD,
    breakerCooldownMs: config.SUPPLIER_BREAKER_COOLDOWN_MS,
    marginPercent: config.SUPPLIER_MARGIN_PERCENT,
    ...(onBreakerChange && { onBreakerChange }),
  });
}

/** The catalogue HTTP app; never listens, so tests drive it with supertest. */
export function createApp(deps: AppDeps): Express {
  const { config, logger } = deps;
  const bundles = createSandboxBundles(createBundleRepository(deps.db.knex));
  const live = liveSupplierFromConfig(config, (state) => logger.warn({ state }, 'live supplier circuit changed'));
  const liveOrdering = createLiveOrderingRepository(deps.db.knex);
  const catalogue = createCatalogue({ bundles, suppliers: { test: createSimulatedSupplier(bundles), live }, liveOrdering, logger });
  const cursors = createCursorCodec(config.CURSOR_SECRET);

  return createServiceApp({
    ...serviceFrame(deps),
    routes: (app) => {
      createExpressEndpoints(contract.catalogue, listBundlesRouter(catalogue, cursors), app, tsRestOptions);
      createExpressEndpoints(internalContract.catalogue, internalBundlesRouter(catalogue), app, tsRestOptions);
      createExpressEndpoints(internalSupplyContract, internalSupplyRouter(catalogue), app, tsRestOptions);
      createExpressEndpoints(internalCatalogueAccountsContract, internalLiveOrderingRouter(liveOrdering), app, operatorRouteOptions);
    },
  });
}
