export * from './bus.ts';
export * from './database.ts';
export * from './eventually.ts';
export * from './metrics.ts';
