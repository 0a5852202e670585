import { Readable } from 'node:stream';
import { contract } from '@connectivity/contracts';
import { claimOf, getCaller, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { chooseQrMediaType } from '../domain/qr-media-type.ts';
import { getEsim } from '../use-cases/get-esim.ts';
import { getEsimQrCode } from '../use-cases/get-esim-qr-code.ts';
import { listEsims } from '../use-cases/list-esims.ts';
import { placeOrder, type PlaceOrderDeps } from '../use-cases/place-order.ts';
import { updateEsim, type UpdateEsimDeps } from '../use-cases/update-esim.ts';

const s = initServer();

export type EsimRoutesDeps = PlaceOrderDeps & UpdateEsimDeps & { cursors: CursorCodec };

/** The public eSIM routes: buy, list, read, change state or metadata, QR code. */
export function esimRouter(deps: EsimRoutesDeps) {
  return s.router(contract.esim, {
    createEsim: async ({ body, res }) => ({ status: 201, body: await placeOrder(deps, getCaller(res), body, claimOf(res)) }),
    listEsims: async ({ query, res }) => ({ status: 200, body: await listEsims(deps.knex, deps.cursors, getCaller(res), query) }),
    getEsim: async ({ params, res }) => ({ status: 200, body: await getEsim(deps.knex, getCaller(res), params.id) }),
    updateEsim: async ({ params, body, res }) => ({ status: 200, body: await updateEsim(deps, getCaller(res), params.id, body, claimOf(res)) }),
    getEsimQrCode: async ({ params, req, res }) => {
      const type = chooseQrMediaType(req.get('accept'));
      const image = await getEsimQrCode(deps.knex, getCaller(res), params.id, type);
      res.setHeader('content-type', type);
      res.setHeader('content-length', String(image.length));
      res.setHeader('vary', 'Accept');
      // The image carries the activation code, which installs the profile: no cache keeps it.
      res.setHeader('cache-control', 'private, no-store');
      // ts-rest gives every answer of this route the contract's one content type, except a stream,
      // which it pipes as it is: so the type chosen above stands.
      return { status: 200, body: Readable.from([image]) as never };
    },
  });
}
