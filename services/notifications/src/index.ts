export { createApp } from './app.ts';
export { configSchema, loadConfig, resolveSecretKey, type Config } from './config.ts';
export { migrations } from './db/migrations/index.ts';
export { createNotificationsService, notificationsService, type NotificationsContext, type NotificationsOptions } from './service.ts';
export type { ResolveHost } from './clients/public-host.ts';
export { EVENTS_DURABLE } from './consumers/event-consumer.ts';
export { STREAM_NOTICE_SUBJECT } from './consumers/stream-notices.ts';
