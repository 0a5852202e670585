import { internalSupplyCallbacksContract, internalSupplyContract } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { actOnProfile, terminateProfile } from '../use-cases/act-on-profile.ts';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';
import { purchaseProfiles, stockSandboxProfiles } from '../use-cases/order-profiles.ts';
import { findSupplierOrder, listVendorOrders, refundStatus, reportProfile } from '../use-cases/supply-reports.ts';

const s = initServer();

/** Profiles from the environment's supplier, for inventory (called before its order transaction, or to stock sandbox ones). */
export function internalSupplyRouter(deps: CatalogueDeps) {
  return s.router(internalSupplyContract, {
    orderProfiles: async ({ body, res }) => {
      const outcome = await purchaseProfiles(deps, getCaller(res), body);
      return outcome.outcome === 'bought' ? { status: 200, body: outcome } : { status: 202, body: outcome };
    },
    findOrder: async ({ params, query, res }) => ({ status: 200, body: { profiles: await findSupplierOrder(deps, getCaller(res), params.reference, query) } }),
    profileReport: async ({ params, res }) => ({ status: 200, body: await reportProfile(deps, getCaller(res), params.iccid) }),
    stockSandboxProfiles: async ({ body, res }) => ({ status: 200, body: { profiles: await stockSandboxProfiles(deps, getCaller(res), body) } }),
    suspendProfile: async ({ params, res }) => {
      await actOnProfile(deps, getCaller(res), params.iccid, 'suspend');
      return { status: 200, body: { iccid: params.iccid, status: 'suspended' } };
    },
    resumeProfile: async ({ params, res }) => {
      await actOnProfile(deps, getCaller(res), params.iccid, 'resume');
      return { status: 200, body: { iccid: params.iccid, status: 'active' } };
    },
    terminateProfile: async ({ params, res }) => ({ status: 200, body: await terminateProfile(deps, getCaller(res), params.iccid) }),
    refundStatus: async ({ params, query, res }) => ({
      status: 200,
      body: { iccid: params.iccid, status: await refundStatus(deps, getCaller(res), params.iccid, query.vendor_refund_id) },
    }),
  });
}

/** Calls for no account: the vendor's orders for the audit. */
export function internalSupplyCallbacksRouter(deps: CatalogueDeps) {
  return s.router(internalSupplyCallbacksContract, {
    listVendorOrders: async ({ query }) => ({ status: 200, body: await listVendorOrders(deps, query) }),
  });
}
