import { SUPPLIER_VENDORS, type SupplierVendor } from '@connectivity/contracts';
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
 * body (within its limit) and the headers go to inventory, which has the callback verified,
 * stores its reports and answers at once. Every refusal is the API's error object.
 */
export function supplierHookRoutes(deps: SupplierHookDeps): Router {
  const router = Router();
  const receive = (vendor: SupplierVendor) => async (req: Request, res: Response) => {
    await applyAddressLimit(deps, req, res, 'hooks', deps.perMinute);
    const body = await readRawBody(req, deps.maxBodyBytes, deps.bodyDeadline);
    const receipt = await deps.passCallback(vendor, { body_base64: body.toString('base64'), headers: headersOf(req) });
    res.status(200).json(receipt);
  };
  // Airalo checks a webhook URL with a HEAD when it is registered: the hook answers it, empty.
  const check = async (req: Request, res: Response) => {
    await applyAddressLimit(deps, req, res, 'hooks', deps.perMinute);
    res.status(200).end();
  };
  for (const vendor of SUPPLIER_VENDORS) {
    router.post(`/hooks/${vendor}`, receive(vendor));
    router.head(`/hooks/${vendor}`, check);
  }
  return router;
}
