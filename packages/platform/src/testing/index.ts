export * from './bus.ts';
export * from './database.ts';
export * from './eventually.ts';
