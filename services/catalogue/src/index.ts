export { createApp, type AppDeps } from './app.ts';
export { loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { catalogueService } from './service.ts';
export { startFakeSupplier, type FakeSupplier, type FakeSupplierFaults, type StartFakeSupplierOptions } from './supplier/fake-supplier/index.ts';
