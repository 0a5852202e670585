export { createApp, type AppDeps } from './app.ts';
export { loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { renderQrCode } from './domain/render-qr-code.ts';
export { inventoryService } from './service.ts';
