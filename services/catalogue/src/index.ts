export { createApp } from './app.ts';
export { configSchema, loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { catalogueService, createContext, type CatalogueContext } from './service.ts';
