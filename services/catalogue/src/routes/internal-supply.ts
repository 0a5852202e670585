import { internalSupplyCallbacksContract, internalSupplyContract } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { actOnProfile } from '../use-cases/act-on-profile.ts';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';
import { orderProfiles, stockSandboxProfiles } from '../use-cases/order-profiles.ts';
import { findSupplierOrder, parseSupplierCallback, reportProfile } from '../use-cases/supply-reports.ts';

const s = initServer();

/** Profiles from the environment's supplier, for inventory (called before its order transaction, or to stock sandbox ones). */
export function internalSupplyRouter(deps: CatalogueDeps) {
  return s.router(internalSupplyContract, {
    orderProfiles: async ({ body, res }) => ({ status: 200, body: { profiles: await orderProfiles(deps, getCaller(res), body) } }),
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
    terminateProfile: async ({ params, res }) => {
      await actOnProfile(deps, getCaller(res), params.iccid, 'terminate');
      return { status: 200, body: { iccid: params.iccid, status: 'terminated' } };
    },
  });
}

/** Vendor callbacks the gateway received, for no account: verified and read, never stored here. */
export function internalSupplyCallbacksRouter(deps: CatalogueDeps) {
  return s.router(internalSupplyCallbacksContract, {
    parseCallback: async ({ params, body }) => ({ status: 200, body: { reports: await parseSupplierCallback(deps, params.vendor, body) } }),
  });
}
