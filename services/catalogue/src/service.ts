import type { ServiceDefinition } from '@connectivity/platform';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';

/** catalogue has no background workers: it serves the sandbox catalogue and fronts the supplier. */
export const catalogueService: ServiceDefinition<Config> = {
  name: 'catalogue',
  migrations,
  loadConfig,
  start(runtime, config) {
    const app = createApp({ ...runtime, config });
    return Promise.resolve({ app, stop: () => Promise.resolve() });
  },
};
