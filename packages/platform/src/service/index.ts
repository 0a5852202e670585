export * from './drain.ts';
export * from './run-service.ts';
export * from './service-config.ts';
export * from './shutdown.ts';
export * from './types.ts';
export * from './started-service.ts';
