export { createApp } from './app.ts';
export { configSchema, loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { catalogueService, createContext } from './service.ts';
export type { CatalogueContext } from './context.ts';
