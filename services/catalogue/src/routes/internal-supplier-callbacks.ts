import { internalSupplierCallbacksContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import { receiveSupplierCallback, type ReceiveSupplierCallbackDeps } from '../use-cases/receive-supplier-callback.ts';

const s = initServer();

/** A vendor's callback from the gateway's hook, for no account: verified, read and handed to inventory on the bus (record 0262). */
export function internalSupplierCallbacksRouter(deps: ReceiveSupplierCallbackDeps) {
  return s.router(internalSupplierCallbacksContract, {
    receiveSupplierCallback: async ({ params, body }) => ({ status: 200, body: await receiveSupplierCallback(deps, params.vendor, body) }),
  });
}
