import { internalSupplyContract } from '@connectivity/contracts';
import { getIdentity } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Catalogue } from '../catalogue.ts';

const s = initServer();

/** Profiles from the environment's supplier, for inventory (called before its order transaction, or to stock sandbox ones). */
export function internalSupplyRouter(catalogue: Catalogue) {
  return s.router(internalSupplyContract, {
    orderProfiles: async ({ body, res }) => {
      return { status: 200, body: { profiles: await catalogue.orderProfiles(getIdentity(res), body) } };
    },
    stockSandboxProfiles: async ({ body, res }) => {
      return { status: 200, body: { profiles: await catalogue.stockSandboxProfiles(getIdentity(res), body) } };
    },
    suspendProfile: async ({ params, res }) => {
      await catalogue.profileAction(getIdentity(res).environment, params.iccid, 'suspend');
      return { status: 200, body: { iccid: params.iccid, status: 'suspended' } };
    },
    resumeProfile: async ({ params, res }) => {
      await catalogue.profileAction(getIdentity(res).environment, params.iccid, 'resume');
      return { status: 200, body: { iccid: params.iccid, status: 'active' } };
    },
    terminateProfile: async ({ params, res }) => {
      await catalogue.profileAction(getIdentity(res).environment, params.iccid, 'terminate');
      return { status: 200, body: { iccid: params.iccid, status: 'terminated' } };
    },
  });
}
