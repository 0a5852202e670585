export * from './fingerprint.ts';
export * from './migration.ts';
export * from './requests.ts';
export * from './store.ts';
export * from './owner.ts';
