export { createApp } from './app.ts';
export { configSchema, loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { renderQrCode } from './domain/render-qr-code.ts';
export { SUPPLIER_REPORTS_DURABLE } from './consumers/supplier-reports.ts';
export { createContext, inventoryService } from './service.ts';
export type { InventoryContext } from './context.ts';
