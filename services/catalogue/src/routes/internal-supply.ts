import { ApiError, internalSupplyContract } from '@connectivity/contracts';
import { getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { actOnProfile } from '../use-cases/act-on-profile.ts';
import type { CatalogueDeps } from '../use-cases/live-catalogue.ts';
import { orderProfiles, stockSandboxProfiles } from '../use-cases/order-profiles.ts';

const s = initServer();

/** Profiles from the environment's supplier, for inventory (called before its order transaction, or to stock sandbox ones). */
export function internalSupplyRouter(deps: CatalogueDeps) {
  return s.router(internalSupplyContract, {
    orderProfiles: async ({ body, res }) => ({ status: 200, body: { profiles: await orderProfiles(deps, getCaller(res), body) } }),
    // What the supplier did for an order and says of a profile: the live adapters answer these.
    findOrder: () => Promise.reject(new ApiError('resource_not_found', { message: 'The live supplier reports no orders yet.' })),
    profileReport: () => Promise.reject(new ApiError('resource_not_found', { message: 'The live supplier reports no profiles yet.' })),
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
