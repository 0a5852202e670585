export * from './bus.ts';
export * from './database.ts';
