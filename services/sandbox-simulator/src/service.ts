import type { ServiceDefinition } from '@connectivity/platform';
import { createApp, type AppDeps } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';

/** sandbox-simulator: /v1/test/usage and /v1/test/error; no background work. */
export const sandboxSimulatorService: ServiceDefinition<Config, AppDeps> = {
  name: 'sandbox-simulator',
  migrations,
  loadConfig,
  context: (runtime, config) => ({ ...runtime, config }),
  app: createApp,
};
