import { ApiError, isApiError, SUPPLIER_VENDORS, type SupplierCallbackReceipt, type SupplierVendor } from '@connectivity/contracts';
import { Router, type Request, type Response } from 'express';
import type { PassCallback } from '../clients/supplier-callbacks.ts';
import { applyAddressLimit, type RateLimitDeps } from '../use-cases/rate-limit.ts';
import { readRawBody, type BodyDeadline } from '../use-cases/read-body.ts';

export interface SupplierHookDeps extends RateLimitDeps {
  passCallback: PassCallback;
  perMinute: number;
  maxBodyBytes: number;
  /** A callback's body within this, as every body (record 0201). */
  bodyDeadline: BodyDeadline;
}

const HOOK_METHODS = 'POST, HEAD';

/** The answer to a path no route serves, word for word as the edge's (app.ts). */
const unknownRoute = (req: Request) => new ApiError('no_such_route', { message: `No route ${req.method} ${req.path}.` });

/** Headers never passed on with a callback: nothing a vendor signs, and nothing of anyone's session. */
const DROPPED_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization']);

/** The callback's headers as one record, names in lower case (as node gives them), repeated ones joined. */
function headersOf(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The suppliers' callbacks (record 0150): `POST /hooks/airalo` and `POST /hooks/esim-go`, outside
 * `/v1` and without an API key (the vendor's signature, checked on the exact bytes by catalogue's
 * adapter, is the authentication). Counted per source address on a budget of their own; the raw
 * body (within its limit) and the headers go to catalogue, which verifies the callback and
 * answers once its reports are on the bus for inventory (record 0262). Every refusal is the API's
 * error object: a bad signature 401 `signature_invalid`, another method 405 `method_not_allowed`
 * with `Allow`, a vendor that is not the live one the 404 of an unknown route (record 0204).
 */
export function supplierHookRoutes(deps: SupplierHookDeps): Router {
  const router = Router();
  const receive = (vendor: SupplierVendor) => async (req: Request, res: Response) => {
    await applyAddressLimit(deps, req, res, 'hooks', deps.perMinute);
    const body = await readRawBody(req, deps.maxBodyBytes, deps.bodyDeadline);
    let receipt: SupplierCallbackReceipt;
    try {
      receipt = await deps.passCallback(vendor, { body_base64: body.toString('base64'), headers: headersOf(req) });
    } catch (error) {
      // A vendor that is not the live supplier: the 404 of any unknown route, naming nothing
      // (catalogue's words name the live vendor; record 0204).
      if (isApiError(error) && error.code === 'resource_not_found') throw unknownRoute(req);
      throw error;
    }
    res.status(200).json(receipt);
  };
  // Airalo checks a webhook URL with a HEAD when it is registered: the hook answers it, empty.
  const check = async (req: Request, res: Response) => {
    await applyAddressLimit(deps, req, res, 'hooks', deps.perMinute);
    res.status(200).end();
  };
  // Any other method at a hook: 405 with `Allow`, not the API's demand for a key (record 0204).
  const otherMethod = async (req: Request, res: Response) => {
    await applyAddressLimit(deps, req, res, 'hooks', deps.perMinute);
    res.setHeader('Allow', HOOK_METHODS);
    throw new ApiError('method_not_allowed', { message: `\`${req.path}\` takes ${HOOK_METHODS}, not ${req.method}.` });
  };
  for (const vendor of SUPPLIER_VENDORS) {
    router.post(`/hooks/${vendor}`, receive(vendor));
    router.head(`/hooks/${vendor}`, check);
    router.all(`/hooks/${vendor}`, otherMethod);
  }
  return router;
}
