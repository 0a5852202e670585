export * from './migration.ts';
export * from './outbox.ts';
export * from './relay.ts';
