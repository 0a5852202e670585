export { createApp, type AppDeps } from './app.ts';
export { createAdminApp, type AdminDeps } from './admin/admin-app.ts';
export { ADMIN_FILE_NAME, type AdminEndpoint } from './admin/admin-file.ts';
export { loadConfig, configSchema, type Config } from './config.ts';
export { migrations, SCHEMA } from './db/migrations/index.ts';
export { gatewayIdempotency } from './db/idempotency-repository.ts';
export { ensureDevAccount, type DevAccount, type DevAccountOptions } from './dev-account.ts';
export { createAccount, restrictKey, revokeKeyById, rotateKey } from './keys/key-admin.ts';
export { gatewayService, startGateway, type StartedGateway } from './service.ts';
