export { createApp } from './app.ts';
export { configSchema, loadConfig, resolveSecretKey, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { createNotificationsService, notificationsService } from './service.ts';
export type { ResolveHost } from './clients/public-host.ts';
export { EVENTS_DURABLE } from './consumers/event-consumer.ts';
export { STREAM_NOTICE_SUBJECT } from './consumers/stream-notices.ts';
export type { NotificationsOptions } from './context.ts';
export type { NotificationsContext } from './context.ts';
