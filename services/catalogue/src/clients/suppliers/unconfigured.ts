import { SupplierError, type Supplier } from './port.ts';

const notConfigured = () => Promise.reject(new SupplierError('unavailable', 'no live supplier is configured'));

/** The live adapter until a supplier is configured: every call fails as unavailable (nothing is ever sent). */
export const unconfiguredSupplier: Supplier = {
  live: true,
  vendor: undefined,
  listBundles: notConfigured,
  listPrices: notConfigured,
  refreshCatalogue: () => undefined,
  purchase: notConfigured,
  findOrder: notConfigured,
  listOrders: notConfigured,
  profileReport: notConfigured,
  parseCallback: notConfigured,
  suspendProfile: notConfigured,
  resumeProfile: notConfigured,
  terminateProfile: notConfigured,
  refundStatus: notConfigured,
};
