import { internalInventoryCallbacksContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import { receiveSupplierCallback, type ReceiveSupplierCallbackDeps } from '../use-cases/receive-supplier-callback.ts';

const s = initServer();

/** The gateway's supplier hooks land here (for no account): verified, stored, answered. */
export function internalSupplierCallbacksRouter(deps: ReceiveSupplierCallbackDeps) {
  return s.router(internalInventoryCallbacksContract, {
    receiveSupplierCallback: async ({ params, body }) => ({ status: 200, body: await receiveSupplierCallback(deps, params.vendor, body) }),
  });
}
