export { createApp } from './app.ts';
export { configSchema, loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { renderQrCode } from './domain/render-qr-code.ts';
export { createContext, inventoryService, type InventoryContext } from './service.ts';
