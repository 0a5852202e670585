export * from './create-database.ts';
export * from './migrate.ts';
export * from './runtime-role.ts';
export * from './types.ts';
export * from './one-statement.ts';
export * from './prepared.ts';
