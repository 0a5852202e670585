export { createApp, type AppDeps } from './app.ts';
export { loadConfig, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { createNotificationsService, notificationsService, type NotificationsOptions } from './service.ts';
export type { ResolveHost } from './delivery/public-host.ts';
export { resolveSecretKey } from './secrets/secret-key.ts';
