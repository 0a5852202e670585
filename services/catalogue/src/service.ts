import type { ServiceDefinition } from '@connectivity/platform';
import { createApp, type AppDeps } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';

/** catalogue: the sandbox catalogue and the live supplier behind it; no background work. */
export const catalogueService: ServiceDefinition<Config, AppDeps> = {
  name: 'catalogue',
  migrations,
  loadConfig,
  context: (runtime, config) => ({ ...runtime, config }),
  app: createApp,
};
