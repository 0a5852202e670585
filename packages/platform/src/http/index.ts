export * from './create-service-app.ts';
export * from './error-handler.ts';
export * from './health.ts';
export * from './internal-auth.ts';
export * from './request-id.ts';
export * from './ts-rest.ts';
