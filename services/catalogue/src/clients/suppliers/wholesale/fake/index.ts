export { startFakeSupplier, type FakeSupplier, type StartFakeSupplierOptions } from './start.ts';
export type { FakeSupplierFaults } from './app.ts';
