export * from './schemas.ts';
export * from './routes.ts';
export * from './contract.ts';
export * from './openapi.ts';
