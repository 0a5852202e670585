import {
  contract,
  internalCatalogueAccountsContract,
  internalCatalogueTopupsContract,
  internalContract,
  internalSupplierCallbacksContract,
  internalSupplyCallbacksContract,
  internalSupplyContract,
} from '@connectivity/contracts';
import { createServiceApp, operatorRouteOptions, serviceFrame, systemRouteOptions, tsRestOptions } from '@connectivity/platform';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { internalBundlesRouter } from './routes/internal-bundles.ts';
import { internalLiveOrderingRouter } from './routes/internal-live-ordering.ts';
import { internalSupplierCallbacksRouter } from './routes/internal-supplier-callbacks.ts';
import { internalSupplyCallbacksRouter, internalSupplyRouter } from './routes/internal-supply.ts';
import { internalTopupsRouter } from './routes/internal-topups.ts';
import { listBundlesRouter } from './routes/list-bundles.ts';
import type { CatalogueContext } from './context.ts';

/** The catalogue HTTP app; never listens, so tests drive it with supertest. */
export function createApp(context: CatalogueContext): Express {
  return createServiceApp({
    ...serviceFrame(context),
    routes: (app) => {
      createExpressEndpoints(contract.catalogue, listBundlesRouter(context, context.cursors), app, tsRestOptions);
      createExpressEndpoints(internalContract.catalogue, internalBundlesRouter(context), app, tsRestOptions);
      createExpressEndpoints(internalSupplyContract, internalSupplyRouter(context), app, tsRestOptions);
      createExpressEndpoints(internalCatalogueTopupsContract, internalTopupsRouter(context), app, tsRestOptions);
      createExpressEndpoints(internalSupplyCallbacksContract, internalSupplyCallbacksRouter(context), app, systemRouteOptions);
      createExpressEndpoints(internalSupplierCallbacksContract, internalSupplierCallbacksRouter(context), app, systemRouteOptions);
      createExpressEndpoints(internalCatalogueAccountsContract, internalLiveOrderingRouter(context), app, operatorRouteOptions);
    },
  });
}
