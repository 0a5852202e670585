export { createApp } from './app.ts';
export { configSchema, loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { createContext, sandboxSimulatorService } from './service.ts';
export type { SimulatorContext } from './context.ts';
