import type { ServiceDefinition } from '@connectivity/platform';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { migrations } from './db/migrations/index.ts';

export const sandboxSimulatorService: ServiceDefinition<Config> = {
  name: 'sandbox-simulator',
  migrations,
  loadConfig,
  start(runtime, config) {
    const app = createApp({ ...runtime, config });
    return Promise.resolve({ app, stop: () => Promise.resolve() });
  },
};
