// @connectivity/contracts: the one source of the public API, its errors, its events and the internal routes.

// The public API alone (what the SDK bundles), then what only the services and the document need.
export * from './public.ts';

export * from './errors/api-error.ts';
export * from './errors/from-zod.ts';
export * from './events/items.ts';
export * from './events/subjects.ts';
export * from './json-schema.ts';
export * from './routes/operation.ts';
export * from './routes/route-table.ts';

export * from './internal/headers.ts';
export * from './internal/callers.ts';
export * from './internal/catalogue.ts';
export * from './internal/inventory.ts';
export * from './internal/contract.ts';
export * from './internal/catalogue-supply.ts';
export * from './internal/inventory-accounts.ts';
export * from './internal/catalogue-accounts.ts';
export * from './internal/inventory-releases.ts';
export * from './internal/supplier-callbacks.ts';
export * from './internal/catalogue-topups.ts';

export * from './openapi.ts';
export { errorExample } from './openapi/examples/operations.ts';

export * from './admin/index.ts';
