import { SupplierError, type Supplier } from './port.ts';

const notConfigured = () => Promise.reject(new SupplierError('unavailable', 'no live supplier is configured'));

/** The live adapter until a supplier is configured: every call fails as unavailable. */
export const unconfiguredSupplier: Supplier = {
  live: true,
  vendor: undefined,
  listBundles: notConfigured,
  listPrices: notConfigured,
  orderProfiles: notConfigured,
  findOrder: notConfigured,
  profileReport: notConfigured,
  parseCallback: notConfigured,
  suspendProfile: notConfigured,
  resumeProfile: notConfigured,
  terminateProfile: notConfigured,
};
