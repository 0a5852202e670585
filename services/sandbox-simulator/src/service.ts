import type { ServiceDefinition, ServiceRuntime } from '@connectivity/platform';
import { createApp } from './app.ts';
import type { SimulatorContext } from './context.ts';
import { createInventoryClient } from './clients/inventory.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';

export function createContext(runtime: ServiceRuntime, config: Config): SimulatorContext {
  const inventory = createInventoryClient({
    baseUrl: config.INVENTORY_URL,
    internalToken: config.INTERNAL_TOKEN ?? '',
    timeoutMs: config.INVENTORY_TIMEOUT_MS,
  });
  return { ...runtime, config, inventory };
}

/** sandbox-simulator: /v1/test/usage and /v1/test/error; no background work. */
export const sandboxSimulatorService: ServiceDefinition<Config, SimulatorContext> = {
  name: 'sandbox-simulator',
  migrations,
  loadConfig,
  context: createContext,
  app: createApp,
};
