import { createCursorCodec, type ServiceDefinition, type ServiceRuntime } from '@connectivity/platform';
import { createApp } from './app.ts';
import type { CatalogueContext } from './context.ts';
import { liveSupplierFromConfig } from './clients/suppliers/from-config.ts';
import { createSimulatedSupplier } from './clients/suppliers/simulated.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';
import { createSandboxBundles } from './db/sandbox-bundles.ts';

export function createContext(runtime: ServiceRuntime, config: Config): CatalogueContext {
  const bundles = createSandboxBundles(runtime.db.knex);
  const live = liveSupplierFromConfig(config, runtime.logger);
  return {
    ...runtime,
    config,
    knex: runtime.db.knex,
    bundles,
    suppliers: { test: createSimulatedSupplier(bundles), live },
    marginPercent: config.SUPPLIER_MARGIN_PERCENT,
    cursors: createCursorCodec(config.CURSOR_SECRET),
  };
}

/** catalogue: the sandbox catalogue and the live supplier behind it; no background work. */
export const catalogueService: ServiceDefinition<Config, CatalogueContext> = {
  name: 'catalogue',
  migrations,
  loadConfig,
  context: createContext,
  app: createApp,
};
