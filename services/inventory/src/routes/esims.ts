import { contract } from '@connectivity/contracts';
import { getIdentity, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { ChangeStateDeps } from '../esims/change-state.ts';
import { changeState } from '../esims/change-state.ts';
import { getEsim, listEsims } from '../esims/read-esims.ts';
import { placeOrder, type PlaceOrderDeps } from '../orders/place-order.ts';

const s = initServer();

export type EsimRoutesDeps = PlaceOrderDeps & ChangeStateDeps & { cursors: CursorCodec };

/** The public eSIM routes: buy, list, read, change state. */
export function esimRouter(deps: EsimRoutesDeps) {
  return s.router(contract.esim, {
    createEsim: async ({ body, res }) => ({ status: 201, body: await placeOrder(deps, getIdentity(res), body) }),
    listEsims: async ({ query, res }) => ({ status: 200, body: await listEsims(deps.knex, deps.cursors, getIdentity(res), query) }),
    getEsim: async ({ params, res }) => ({ status: 200, body: await getEsim(deps.knex, getIdentity(res), params.id) }),
    updateEsim: async ({ params, body, res }) => ({
      status: 200,
      body: await changeState(deps, getIdentity(res), params.id, body.state),
    }),
  });
}
