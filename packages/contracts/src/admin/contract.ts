import { initContract } from '@ts-rest/core';
import { adminAccountRoutes, adminKeyRoutes, adminRefundRoutes, adminSupplierReleaseRoutes } from './routes.ts';

const c = initContract();

/**
 * The operator admin API (the gateway's admin listener, `Authorization: Bearer <ADMIN_TOKEN>`):
 * served with @ts-rest/express so every route validates its input like the public ones, and
 * called by the CLI through a typed client. Not in the public openapi.json: integrators never
 * reach it (see `buildAdminOpenApiDocument`).
 */
export const adminContract = c.router(
  {
    accounts: adminAccountRoutes,
    keys: adminKeyRoutes,
    supplierReleases: adminSupplierReleaseRoutes,
    refunds: adminRefundRoutes,
  },
  { strictStatusCodes: true },
);
export type AdminContract = typeof adminContract;
